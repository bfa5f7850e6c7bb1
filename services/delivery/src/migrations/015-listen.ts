import type { Knex, Migration } from '@cluster/db';

/**
 * Temporary subscriptions of listening CLIs (GET /webhooks/listen; docs/decisions-webhooks.md, "Local
 * listening"): `temporary` marks them (the HTTP claim and the fan-out's handoff skip them: the replica
 * holding the stream claims their deliveries), `listenExpiresAt` is the stream's lease, renewed while it
 * is open; the health sweep deletes those whose lease lapsed (a replica killed mid-stream). The partial
 * index serves the per-organization cap and that sweep.
 */
export const listen: Migration = {
  name: '015-listen',
  async up(knex: Knex) {
    await knex.schema.withSchema('delivery').alterTable('subscriptions', (t) => {
      t.boolean('temporary').notNullable().defaultTo(false);
      t.timestamp('listenExpiresAt', { useTz: true });
    });
    await knex.raw(
      'CREATE INDEX subscriptions_temporary ON delivery.subscriptions ("organizationId", "listenExpiresAt") WHERE temporary',
    );
  },
};
