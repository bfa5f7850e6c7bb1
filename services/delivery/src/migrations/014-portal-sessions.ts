import type { Knex, Migration } from '@cluster/db';

/**
 * The integrator portal (docs/portal.md): its sessions and the organizations' embedding allow-lists.
 * A session row is minted with its one-time link (`linkHash`, usable until `linkExpiresAt`); opening
 * the link sets `openedAt`, the session's and its CSRF token's hashes and `expiresAt` in one
 * conditional update, so a link opens once. Only SHA-256 hashes of the tokens are stored. `actor`
 * is the minting key's actor narrowed to the session's scope and access (the core confirms the key
 * behind it on every call).
 */
export const portalSessions: Migration = {
  name: '014-portal-sessions',
  async up(knex: Knex) {
    await knex.schema.withSchema('delivery').createTable('portal_sessions', (t) => {
      t.uuid('id').primary();
      t.uuid('organizationId').notNullable();
      t.uuid('apiKeyId').notNullable();
      t.jsonb('actor').notNullable();
      t.text('access').notNullable();
      t.uuid('projectId');
      t.integer('lifetimeSeconds').notNullable();
      t.text('linkHash').notNullable().unique();
      t.timestamp('linkExpiresAt', { useTz: true }).notNullable();
      t.timestamp('openedAt', { useTz: true });
      t.text('sessionHash').unique();
      t.text('csrfHash');
      t.timestamp('expiresAt', { useTz: true });
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['organizationId', 'createdAt']);
    });
    await knex.schema.withSchema('delivery').createTable('portal_settings', (t) => {
      t.uuid('organizationId').primary();
      t.specificType('frameAncestors', 'text[]').notNullable().defaultTo('{}');
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
};
