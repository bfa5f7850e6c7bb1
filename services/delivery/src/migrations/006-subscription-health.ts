import type { Knex, Migration } from '@cluster/db';

/**
 * A subscription's health (docs/webhooks.md, "Failing endpoints"): the failed attempts in a row and
 * since when every attempt has failed (reset by any success), when `webhook.subscription.failing` was
 * sent for the current run of failures, and why and when the service disabled it (a 410 Gone, or
 * failing for WEBHOOK_DISABLE_AFTER_HOURS). The sweeper's scan is over enabled, failing subscriptions
 * only (a partial index).
 */
export const subscriptionHealth: Migration = {
  name: '006-subscription-health',
  async up(knex: Knex) {
    await knex.raw(`
      ALTER TABLE delivery.subscriptions
        ADD COLUMN IF NOT EXISTS "consecutiveFailures" integer NOT NULL DEFAULT 0,
        ADD COLUMN IF NOT EXISTS "failingSince" timestamptz,
        ADD COLUMN IF NOT EXISTS "failingNotifiedAt" timestamptz,
        ADD COLUMN IF NOT EXISTS "disabledReason" text,
        ADD COLUMN IF NOT EXISTS "disabledAt" timestamptz`);
    await knex.raw(`
      CREATE INDEX IF NOT EXISTS subscriptions_failing ON delivery.subscriptions ("failingSince")
        WHERE enabled AND "deletedAt" IS NULL AND "failingSince" IS NOT NULL`);
  },
};
