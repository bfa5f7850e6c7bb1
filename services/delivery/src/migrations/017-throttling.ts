import type { Knex, Migration } from '@cluster/db';

/**
 * Throttling the receiver asked for (docs/decisions-webhooks.md, "Throttling"): a subscription's `rateLimit`
 * (deliveries per second) and `maxInFlight`, and `pausedUntil` (a receiver's 429/503 with Retry-After). The
 * shared state of a throttled subscription lives in `throttles`, one row per subscription that has a limit
 * (none for the others, so an unthrottled claim reads an empty table): `nextAt`, the earliest send time the
 * next delivery may be given (the rate), and `leases`, the lease tokens of its deliveries held by any replica
 * with their expiry (the in-flight cap). Every claim locks the rows it uses, so replicas share one limit.
 * A delivery's `throttledAttempts` are attempts a receiver answered with Retry-After: they do not advance its
 * backoff; an attempt's `pausedMs` marks such an answer in the attempt log (the statistics' throttled figures).
 */
export const throttling: Migration = {
  name: '017-throttling',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "rateLimit" integer');
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "maxInFlight" integer');
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "pausedUntil" timestamptz');
    await knex.raw('ALTER TABLE delivery.deliveries ADD COLUMN IF NOT EXISTS "throttledAttempts" integer NOT NULL DEFAULT 0');
    await knex.raw('ALTER TABLE delivery.attempts ADD COLUMN IF NOT EXISTS "pausedMs" integer');
    await knex.raw(`CREATE TABLE IF NOT EXISTS delivery.throttles (
      "subscriptionId" uuid PRIMARY KEY REFERENCES delivery.subscriptions (id) ON DELETE CASCADE,
      "nextAt" timestamptz NOT NULL DEFAULT now(),
      leases jsonb NOT NULL DEFAULT '{}'::jsonb
    )`);
  },
};
