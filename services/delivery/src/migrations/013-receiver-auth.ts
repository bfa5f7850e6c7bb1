import type { Knex, Migration } from '@cluster/db';

/**
 * Custom headers and receiver authentication (docs/webhooks.md, "Custom headers" and "Authenticating
 * to your endpoint"): `receiverSealed` holds the headers and the auth settings of a subscription as one
 * sealed JSON value (shared/webhook-secret-box.ts, bound to the subscription), `receiverView` what answers
 * show of them (names, the type and its non-secret parts, values masked), so that no answer opens a secret.
 */
export const receiverAuth: Migration = {
  name: '013-receiver-auth',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "receiverSealed" text');
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "receiverView" jsonb');
  },
};
