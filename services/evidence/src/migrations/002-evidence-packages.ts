import type { Knex, Migration } from '@cluster/db';

/**
 * Every package issued for a release, numbered from 1 per release: its exact bytes (what was
 * signed, served again by sequence), the SHA-256 of those bytes (what the next package's
 * `previousSha256` names) and the digest of its facts (a new package only when they change).
 */
export const evidencePackages: Migration = {
  name: '002-evidence-packages',
  async up(knex: Knex) {
    await knex.schema.createTable('evidence_packages', (t) => {
      t.uuid('releaseId').notNullable();
      t.integer('sequence').notNullable();
      t.uuid('organizationId').notNullable();
      t.text('factsSha256').notNullable();
      t.text('sha256').notNullable();
      t.binary('package').notNullable();
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['releaseId', 'sequence']);
    });
  },
};
