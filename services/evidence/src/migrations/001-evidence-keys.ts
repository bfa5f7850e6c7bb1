import type { Knex, Migration } from '@cluster/db';

/** Evidence keys: one current key per organization (sealed at rest), revoked keys kept for the record. */
export const evidenceKeys: Migration = {
  name: '001-evidence-keys',
  async up(knex: Knex) {
    await knex.schema.createTable('evidence_keys', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable();
      t.text('prefix').notNullable();
      t.text('sealedKey').notNullable();
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('revokedAt', { useTz: true });
    });
    await knex.raw('CREATE UNIQUE INDEX evidence_keys_current ON evidence_keys ("organizationId") WHERE "revokedAt" IS NULL');
  },
};
