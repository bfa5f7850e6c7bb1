import type { Knex, Migration } from '@cluster/db';

/** Statuses of a time entry (spec, "States and transitions"). */
const STATUSES = ['draft', 'submitted', 'approved', 'rejected', 'locked', 'invoiced'];

/**
 * Time entries. Duration is stored once, as minutes (hours are derived); a synced
 * entry keeps its external system, id and metadata, and the unique constraint on
 * (organizationId, externalSystem, externalId) makes concurrent syncs of one record
 * create exactly one row (INSERT ... ON CONFLICT DO NOTHING).
 */
export const timeEntries: Migration = {
  name: '005-time-entries',
  async up(knex: Knex) {
    await knex.schema.createTable('time_entries', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      t.uuid('projectId').notNullable().references('id').inTable('projects').onDelete('CASCADE');
      t.uuid('userId').notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.uuid('entryId').references('id').inTable('entries').onDelete('SET NULL');
      t.uuid('releaseId').references('id').inTable('releases').onDelete('SET NULL');
      t.date('workDate').notNullable();
      t.integer('minutes').notNullable();
      t.text('description');
      t.boolean('billable').notNullable().defaultTo(true);
      t.text('source').notNullable().defaultTo('api');
      t.text('status').notNullable().defaultTo('draft');
      t.boolean('invoiced').notNullable().defaultTo(false);
      t.text('externalSystem');
      t.text('externalId');
      t.jsonb('externalMetadata');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['organizationId', 'externalSystem', 'externalId'], { indexName: 'time_entries_external_key' });
      t.index(['projectId', 'createdAt', 'id']);
      t.index(['organizationId', 'createdAt', 'id']);
      t.index(['projectId', 'workDate']);
    });
    await knex.raw('ALTER TABLE time_entries ADD CONSTRAINT time_entries_minutes_range CHECK (minutes BETWEEN 1 AND 1440)');
    const known = STATUSES.map((s) => `'${s}'`).join(', ');
    await knex.raw(`ALTER TABLE time_entries ADD CONSTRAINT time_entries_status_known CHECK (status IN (${known}))`);
  },
};
