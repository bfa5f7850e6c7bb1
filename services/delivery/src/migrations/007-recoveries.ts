import type { Knex, Migration } from '@cluster/db';

/**
 * Recoveries (POST /webhooks/:id/recover): a window of a subscription's failed and dead-lettered
 * deliveries queued again in batches, with its progress; `cursorCreatedAt`/`cursorId` is the last
 * delivery a batch reached, so a recovery resumed by another replica goes on where it stopped.
 */
export const recoveries: Migration = {
  name: '007-recoveries',
  async up(knex: Knex) {
    await knex.schema.withSchema('delivery').createTable('recoveries', (t) => {
      t.uuid('id').primary();
      t.uuid('organizationId').notNullable();
      t.uuid('subscriptionId').notNullable().references('id').inTable('delivery.subscriptions').onDelete('CASCADE');
      t.timestamp('since', { useTz: true }).notNullable();
      t.timestamp('until', { useTz: true }).notNullable();
      t.text('status').notNullable().defaultTo('running');
      t.integer('requeued').notNullable().defaultTo(0);
      t.timestamp('cursorCreatedAt', { useTz: true });
      t.uuid('cursorId');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('completedAt', { useTz: true });
      t.index(['subscriptionId', 'createdAt']);
    });
    await knex.raw(`CREATE INDEX recoveries_running ON delivery.recoveries ("updatedAt") WHERE status = 'running'`);
  },
};
