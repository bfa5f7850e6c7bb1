import type { Knex, Migration } from '@cluster/db';
import { createOutboxTable } from '@cluster/outbox';

/** Organizations, users, API keys, projects, members, audit events, outbox, idempotency records. */
export const spine: Migration = {
  name: '001-spine',
  async up(knex: Knex) {
    await knex.raw('CREATE EXTENSION IF NOT EXISTS pgcrypto').catch(() => {});
    await knex.schema.createTable('organizations', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.text('name').notNullable();
      t.boolean('apiEnabled').notNullable().defaultTo(true);
      t.text('currency').notNullable().defaultTo('USD');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('users', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').references('id').inTable('organizations').onDelete('CASCADE');
      t.text('email').notNullable();
      t.text('name').notNullable();
      t.text('role').notNullable();
      t.text('passwordHash');
      t.text('mfaSecret');
      t.jsonb('metadata');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['organizationId', 'createdAt']);
    });
    await knex.raw('CREATE UNIQUE INDEX users_org_email ON users ("organizationId", lower(email))');
    await knex.schema.createTable('projects', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      t.text('clientId').notNullable();
      t.text('name').notNullable();
      t.text('description').notNullable();
      t.text('status').notNullable().defaultTo('active');
      for (const c of [
        'logoUrl',
        'wikiContent',
        'chatWebhookUrl',
        'devUrl',
        'prodUrl',
        'hostingAppUrl',
        'hostingWorkspaceId',
        'hostingBoardId',
        'hostingInstanceId',
        'hostingAppName',
        'lastAiStatusUpdate',
        'invoicingMode',
        'codehostAutoStatusTarget',
        'autoStatusTargetStatus',
        'ciCheckRunName',
        'autoLinkThreshold',
        'suggestThreshold',
      ])
        t.text(c);
      t.timestamp('committedCostLockedAt', { useTz: true });
      t.jsonb('customLinks');
      for (const c of [
        'requireCascadeApproval',
        'codehostCommentSyncEnabled',
        'codehostAutoStatusEnabled',
        'codehostAdvancedEnabled',
        'enforceDependencyBlocking',
        'autoStatusOnUnblock',
        'requireAutoStatusApproval',
        'ciRequired',
        'commitScorerEnabled',
        'flakyOverridesEnabled',
        'codehostAiSuggesterEnabled',
        'codehostAiRiskEnabled',
        'releaseNotesAiEnabled',
        'statusUpdateAiEnabled',
        'prDescriptionAiEnabled',
        'reviewerSuggesterAiEnabled',
        'commitLinterAiEnabled',
        'timeBillingEnabled',
      ])
        t.boolean(c).notNullable().defaultTo(false);
      t.integer('scorerRecencyDays');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['organizationId', 'createdAt', 'id']);
    });
    await knex.schema.createTable('project_members', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('projectId').notNullable().references('id').inTable('projects').onDelete('CASCADE');
      t.uuid('userId').notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.text('roleOverride');
      t.jsonb('metadata');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['projectId', 'userId']);
      t.index(['userId']);
    });
    await knex.schema.createTable('api_keys', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      t.uuid('createdByUserId').notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.text('name');
      t.text('prefix').notNullable().unique();
      // sha256 of the whole key; the key itself is never stored.
      t.binary('keyHash').notNullable();
      t.text('scope').notNullable();
      t.uuid('scopedProjectId').references('id').inTable('projects').onDelete('CASCADE');
      t.jsonb('permissions');
      t.timestamp('lastUsedAt', { useTz: true });
      t.timestamp('revokedAt', { useTz: true });
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('audit_events', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable();
      t.uuid('projectId');
      t.text('entityType').notNullable();
      t.text('action').notNullable();
      t.text('entityId').notNullable();
      t.text('entityName');
      t.uuid('actorId');
      t.jsonb('metadata');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['organizationId', 'createdAt', 'id']);
      t.index(['projectId', 'createdAt', 'id']);
    });
    await createOutboxTable(knex, 'core');
    await knex.schema.createTable('sessions', (t) => {
      t.text('tokenHash').primary();
      t.uuid('userId').notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.timestamp('expiresAt', { useTz: true }).notNullable();
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('idempotency_keys', (t) => {
      t.uuid('apiKeyId').notNullable();
      t.text('key').notNullable();
      t.text('fingerprint').notNullable();
      t.text('state').notNullable();
      t.integer('status');
      t.jsonb('body');
      t.jsonb('headers');
      t.timestamp('lockedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expiresAt', { useTz: true }).notNullable();
      t.primary(['apiKeyId', 'key']);
      t.index(['expiresAt']);
    });
  },
};
