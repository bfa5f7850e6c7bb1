import type { Knex, Migration } from '@cluster/db';

/**
 * A subscription's filter on the event's attributes and payload (docs/decisions-webhooks.md, "Attribute and
 * payload filter"): `filter` holds the JSON filter as saved (null: every event its names select), read by the
 * fan-out with the subscription. `filtered_counts` counts the events a filter kept back, per subscription and
 * hour (one row per hour that had any, added to by each fan-out batch), for GET /webhooks/:id/stats: a counter,
 * not a row per event. The retention sweep deletes hours older than the longest statistics window.
 */
export const subscriptionFilter: Migration = {
  name: '016-subscription-filter',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "filter" jsonb');
    await knex.raw(`CREATE TABLE IF NOT EXISTS delivery.filtered_counts (
      "subscriptionId" uuid NOT NULL,
      "hour" timestamptz NOT NULL,
      "count" bigint NOT NULL,
      PRIMARY KEY ("subscriptionId", "hour")
    )`);
  },
};
