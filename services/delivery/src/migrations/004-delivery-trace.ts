import type { Knex, Migration } from '@cluster/db';

/**
 * The W3C trace context of the event a delivery came from (its Kafka message's `traceparent`):
 * every attempt continues that trace, and the receiver gets it in its own `traceparent`. Nullable,
 * no default: adding it rewrites nothing.
 */
export const deliveryTrace: Migration = {
  name: '004-delivery-trace',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.deliveries ADD COLUMN IF NOT EXISTS traceparent text');
  },
};
