import type { Knex, Migration } from '@cluster/db';

/**
 * Audit events of webhook writes, queued in the write's transaction until the
 * core has recorded them (the core keeps the audit trail; see audit/forwarder.ts).
 */
export const auditOutbox: Migration = {
  name: '002-audit-outbox',
  async up(knex: Knex) {
    await knex.schema.withSchema('delivery').createTable('audit_outbox', (t) => {
      t.bigIncrements('seq').primary();
      t.uuid('id').notNullable().unique();
      t.jsonb('actor').notNullable();
      t.text('entityType').notNullable();
      t.text('action').notNullable();
      t.text('entityId').notNullable();
      t.jsonb('metadata');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
};
