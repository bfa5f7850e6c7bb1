import type { Knex, Migration } from '@cluster/db';

/**
 * Secret rotation with a grace period: the secret a rotation replaced keeps signing beside the
 * new one (a second `webhook-signature` value) until `previousSecretUntil`. Nullable, no default.
 */
export const secretGrace: Migration = {
  name: '005-secret-grace',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "previousSecretSealed" text');
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "previousSecretUntil" timestamptz');
  },
};
