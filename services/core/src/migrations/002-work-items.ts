import type { Knex, Migration } from '@cluster/db';

/**
 * Entries, releases and integration links: the tables several features share
 * (time entries reference entries and releases; upserts by externalRef write links).
 */
export const workItems: Migration = {
  name: '002-work-items',
  async up(knex: Knex) {
    await knex.schema.alterTable('projects', (t) => {
      // Last entryNumber handed out; bumped under the project row lock, so numbers have no gaps.
      t.integer('entryCounter').notNullable().defaultTo(0);
    });
    await knex.schema.createTable('releases', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('projectId').notNullable().references('id').inTable('projects').onDelete('CASCADE');
      t.uuid('organizationId').notNullable();
      t.text('name').notNullable();
      t.text('description');
      t.text('version');
      t.text('status').notNullable().defaultTo('planning');
      t.text('type').notNullable().defaultTo('minor');
      t.timestamp('startDate', { useTz: true }).notNullable();
      t.timestamp('endDate', { useTz: true }).notNullable();
      t.timestamp('releasedAt', { useTz: true });
      t.text('targetAudience');
      t.text('riskLevel');
      for (const c of [
        'rolloutPercentage',
        'releaseNotes',
        'retrospectiveNotes',
        'dependsOnReleaseId',
        'lowCost',
        'mediumCost',
        'highCost',
        'committedCost',
        'costUpdatedAt',
        'costSource',
      ])
        t.text(c);
      t.boolean('cascadeAdvance').notNullable().defaultTo(false);
      // release.released fires once per release, ever.
      t.boolean('releasedEventSent').notNullable().defaultTo(false);
      t.uuid('creatorId');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['projectId', 'createdAt', 'id']);
    });
    await knex.schema.createTable('entries', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('projectId').notNullable().references('id').inTable('projects').onDelete('CASCADE');
      t.uuid('organizationId').notNullable();
      t.integer('entryNumber');
      t.text('type').notNullable();
      t.text('title').notNullable();
      t.text('description').notNullable();
      t.text('status').notNullable().defaultTo('open');
      t.text('priority').notNullable().defaultTo('medium');
      t.uuid('assignedToId');
      t.uuid('releaseId').references('id').inTable('releases').onDelete('SET NULL');
      t.uuid('creatorId');
      t.jsonb('typeMetadata');
      t.text('deploymentStage');
      for (const c of [
        'webLink',
        'stepsToReproduce',
        'expectedBehavior',
        'actualBehavior',
        'environment',
        'useCase',
        'proposedSolution',
        'lowCost',
        'mediumCost',
        'highCost',
        'committedCost',
        'committedPosition',
        'costSource',
        'costOverrideReason',
      ])
        t.text(c);
      t.timestamp('statusChangedAt', { useTz: true });
      t.text('approvalStatus');
      t.text('costApprovalStatus');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['projectId', 'entryNumber']);
      t.index(['projectId', 'createdAt', 'id']);
    });
    await knex.schema.createTable('integration_links', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      // Project of the linked record, when it has one (project-scoped keys see only theirs).
      t.uuid('projectId');
      t.text('provider').notNullable();
      t.text('externalType').notNullable();
      t.text('externalId').notNullable();
      t.text('alignEntityType').notNullable();
      t.uuid('alignEntityId').notNullable();
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['organizationId', 'provider', 'externalType', 'externalId']);
      t.index(['alignEntityType', 'alignEntityId']);
      t.index(['organizationId', 'createdAt', 'id']);
    });
  },
};
