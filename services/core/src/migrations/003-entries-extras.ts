import type { Knex, Migration } from '@cluster/db';

/**
 * Comments and attachments of entries. Both carry organizationId and projectId
 * (copied from the entry) so by-id reads check tenancy and project scope without a join.
 */
export const entriesExtras: Migration = {
  name: '003-entries-extras',
  async up(knex: Knex) {
    await knex.schema.createTable('comments', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('entryId').notNullable().references('id').inTable('entries').onDelete('CASCADE');
      t.uuid('projectId').notNullable();
      t.uuid('organizationId').notNullable();
      t.text('body').notNullable();
      t.uuid('authorId');
      t.text('isInternal');
      t.text('isAiGenerated');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['entryId', 'createdAt', 'id']);
    });
    await knex.schema.createTable('attachments', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('entryId').notNullable().references('id').inTable('entries').onDelete('CASCADE');
      t.uuid('projectId').notNullable();
      t.uuid('organizationId').notNullable();
      t.text('fileName').notNullable();
      // Bytes as a decimal string, exactly as registered (spec: fileSize is a string).
      t.text('fileSize').notNullable();
      t.text('fileType').notNullable();
      t.text('objectPath').notNullable();
      t.uuid('uploadedById');
      for (const c of [
        'category',
        'isAiGenerated',
        'sourceAssistantUploadId',
        'sourceAssistantConversationId',
        'linkedByUserId',
        'addedVia',
        'attachmentSource',
        'evidenceSummary',
        'removedByUserId',
        'removedVia',
        'replacementAttachmentId',
        'replacementOfAttachmentId',
        'lifecycleReason',
        'attachmentStatus',
      ])
        t.text(c);
      t.timestamp('removedAt', { useTz: true });
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['entryId', 'createdAt', 'id']);
    });
    // Entry list filters (docs/decisions-api.md, "Lists").
    await knex.schema.alterTable('entries', (t) => {
      t.index(['assignedToId']);
      t.index(['releaseId']);
    });
    // Integration links of a project key: filtered by projectId.
    await knex.schema.alterTable('integration_links', (t) => {
      t.index(['projectId', 'createdAt', 'id']);
    });
  },
};
