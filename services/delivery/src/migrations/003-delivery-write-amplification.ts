import type { Knex, Migration } from '@cluster/db';

/**
 * Fewer index writes per delivery, the sender's hottest cost in Postgres:
 *
 * - Delivery ids are derived from (eventId, subscriptionId) (features/deliveries/ids.ts), so
 *   the primary key makes the fan-out idempotent and the unique index on that pair
 *   is dropped: one index entry less on every insert and every non-HOT update.
 *   Rows written before this migration keep their random ids; an event read again
 *   from before it (a consumer group reset to old offsets) would get a second
 *   delivery, under a new id.
 * - Pages keep half their space free, so a claim (which sets only the lease
 *   columns, indexed nowhere) is a heap-only (HOT) update: no new entry in any
 *   index. Finished rows take about twice the heap; retention bounds them
 *   (features/deliveries/retention.ts).
 */
export const deliveryWriteAmplification: Migration = {
  name: '003-delivery-write-amplification',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.deliveries DROP CONSTRAINT IF EXISTS deliveries_eventid_subscriptionid_unique');
    await knex.raw('ALTER TABLE delivery.deliveries SET (fillfactor = 50)');
  },
};
