import type { Knex, Migration } from '@cluster/db';

/**
 * Opt-in ordered delivery (docs/webhooks.md, "Ordered delivery"): a subscription's `ordering`
 * (`none` or `per_entity`); an ordered delivery's `orderKey` (entityType:entityId) and `orderSeq`
 * (the fan-out's insertion order, which is the event's commit order: one entity's events share a
 * Kafka partition). Neither changes after the insert, and the index covers ordered rows only, so the
 * sender's updates of every other delivery stay heap-only.
 */
export const ordering: Migration = {
  name: '008-ordering',
  async up(knex: Knex) {
    await knex.raw(`ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS ordering text NOT NULL DEFAULT 'none'`);
    await knex.raw('CREATE SEQUENCE IF NOT EXISTS delivery.delivery_order_seq');
    await knex.raw(`
      ALTER TABLE delivery.deliveries
        ADD COLUMN IF NOT EXISTS "orderKey" text,
        ADD COLUMN IF NOT EXISTS "orderSeq" bigint`);
    await knex.raw(`
      CREATE INDEX IF NOT EXISTS deliveries_ordered ON delivery.deliveries ("subscriptionId", "orderKey", "orderSeq")
        WHERE "orderKey" IS NOT NULL`);
  },
};
