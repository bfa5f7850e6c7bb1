import type { Knex, Migration } from '@cluster/db';

/**
 * Ed25519 signatures (docs/signature-schemes.md): a subscription's `signatureScheme` (`hmac-sha256`,
 * what every existing row is, or `ed25519`) and, for ed25519, its `publicKey` (`whpk_...`, not a
 * secret: kept in clear so answers need not open the sealed key). The private key (`whsk_...`) is
 * sealed in `secretSealed` like an HMAC secret, so rotation's grace period and the re-seal apply unchanged.
 */
export const signatureScheme: Migration = {
  name: '009-signature-scheme',
  async up(knex: Knex) {
    await knex.raw(
      `ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "signatureScheme" text NOT NULL DEFAULT 'hmac-sha256'`,
    );
    await knex.raw('ALTER TABLE delivery.subscriptions ADD COLUMN IF NOT EXISTS "publicKey" text');
  },
};
