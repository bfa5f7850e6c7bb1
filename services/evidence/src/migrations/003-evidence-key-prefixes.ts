import type { Knex, Migration } from '@cluster/db';

/**
 * Evidence key prefixes are derived from a hash of the key now (features/keys/service.ts), never
 * stored: the stored ones were the key's own first characters, so they are erased.
 */
export const evidenceKeyPrefixes: Migration = {
  name: '003-evidence-key-prefixes',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE evidence_keys ALTER COLUMN prefix DROP NOT NULL');
    await knex('evidence_keys').update({ prefix: null });
  },
};
