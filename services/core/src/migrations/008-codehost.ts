import type { Knex, Migration } from '@cluster/db';

/**
 * Code-host ingestion (docs/codehost.md): each organization's sealed webhook secret per provider,
 * the delivery ids already processed (a redelivery is answered `duplicate` and changes nothing),
 * and what the deliveries recorded: commits and pull requests that reference entries (with their
 * links to the entries), CI runs, and which run conclusion was last attributed to which entry.
 * Every row carries its organization and every unique key starts with it: one organization's
 * deliveries never meet another's rows.
 */
export const codehost: Migration = {
  name: '008-codehost',
  async up(knex: Knex) {
    const org = (t: Knex.CreateTableBuilder) =>
      t.uuid('organizationId').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    const project = (t: Knex.CreateTableBuilder) =>
      t.uuid('projectId').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    const stamps = (t: Knex.CreateTableBuilder) => {
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    };
    await knex.schema.createTable('codehost_secrets', (t) => {
      org(t);
      t.text('provider').notNullable();
      t.text('secretSealed').notNullable();
      stamps(t);
      t.primary(['organizationId', 'provider']);
    });
    await knex.schema.createTable('codehost_deliveries', (t) => {
      org(t);
      t.text('provider').notNullable();
      t.text('deliveryId').notNullable();
      t.text('event').notNullable();
      t.timestamp('receivedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['organizationId', 'provider', 'deliveryId']);
      t.index(['receivedAt']);
    });
    await knex.schema.createTable('code_commits', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      org(t);
      project(t);
      t.text('provider').notNullable();
      t.text('repository').notNullable();
      t.text('sha').notNullable();
      t.text('message').notNullable();
      t.text('url');
      t.text('authorName');
      t.timestamp('committedAt', { useTz: true });
      stamps(t);
      t.unique(['organizationId', 'provider', 'repository', 'sha']);
    });
    await knex.schema.createTable('code_pull_requests', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      org(t);
      project(t);
      t.text('provider').notNullable();
      t.text('repository').notNullable();
      t.integer('number').notNullable();
      t.text('title').notNullable();
      t.text('url');
      t.text('state').notNullable();
      t.boolean('merged').notNullable().defaultTo(false);
      t.timestamp('mergedAt', { useTz: true });
      t.text('headSha');
      t.text('mergeCommitSha');
      stamps(t);
      t.unique(['organizationId', 'provider', 'repository', 'number']);
      t.index(['organizationId', 'provider', 'repository', 'headSha']);
      t.index(['organizationId', 'provider', 'repository', 'mergeCommitSha']);
    });
    for (const [table, parent, column] of [
      ['code_commit_entries', 'code_commits', 'commitId'],
      ['code_pull_request_entries', 'code_pull_requests', 'pullRequestId'],
    ] as const) {
      await knex.schema.createTable(table, (t) => {
        t.uuid(column).notNullable().references('id').inTable(parent).onDelete('CASCADE');
        t.uuid('entryId').notNullable().references('id').inTable('entries').onDelete('CASCADE');
        t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.primary([column, 'entryId']);
        t.index(['entryId']);
      });
    }
    await knex.schema.createTable('code_ci_runs', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      org(t);
      project(t);
      t.text('provider').notNullable();
      t.text('repository').notNullable();
      t.text('kind').notNullable();
      t.text('externalId').notNullable();
      t.text('name').notNullable();
      t.text('headSha').notNullable();
      t.text('status').notNullable();
      t.text('conclusion');
      t.text('url');
      t.timestamp('completedAt', { useTz: true });
      // workflow_run's run_attempt: a re-run keeps the run's id.
      t.integer('attempt').notNullable().defaultTo(1);
      stamps(t);
      t.unique(['organizationId', 'provider', 'kind', 'externalId']);
      t.index(['organizationId', 'provider', 'repository', 'headSha']);
    });
    await knex.schema.createTable('code_ci_run_attributions', (t) => {
      t.uuid('ciRunId').notNullable().references('id').inTable('code_ci_runs').onDelete('CASCADE');
      t.uuid('entryId').notNullable().references('id').inTable('entries').onDelete('CASCADE');
      t.text('conclusion');
      t.primary(['ciRunId', 'entryId']);
    });
  },
};
