import type { Knex, Migration } from '@cluster/db';

/**
 * The tool-protocol endpoint's OAuth sign-in (docs/mcp.md, "Signing in"): registered clients (RFC 7591
 * metadata as given) and grants. A grant is one user's approval of one client for one API key,
 * narrowed to the scopes they chose; it holds the SHA-256 of its one-time code, of its current access
 * and refresh tokens, and of the refresh token before (a reused one revokes the grant). Deleting the
 * key deletes its grants; revoking it ends them (the key is checked on every call).
 */
export const oauth: Migration = {
  name: '012-oauth',
  async up(knex: Knex) {
    await knex.schema.createTable('oauth_clients', (t) => {
      t.text('id').primary();
      t.jsonb('metadata').notNullable();
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('oauth_grants', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.text('clientId').notNullable().references('id').inTable('oauth_clients').onDelete('CASCADE');
      t.uuid('apiKeyId').notNullable().references('id').inTable('api_keys').onDelete('CASCADE');
      t.uuid('organizationId').notNullable();
      t.specificType('scopes', 'text[]').notNullable();
      t.text('redirectUri').notNullable();
      t.text('codeChallenge').notNullable();
      t.text('resource');
      t.binary('codeHash').notNullable().unique();
      t.timestamp('codeExpiresAt', { useTz: true }).notNullable();
      t.timestamp('codeUsedAt', { useTz: true });
      t.binary('accessHash').unique();
      t.timestamp('accessExpiresAt', { useTz: true });
      t.binary('refreshHash').unique();
      t.binary('previousRefreshHash').unique();
      t.timestamp('refreshExpiresAt', { useTz: true });
      t.timestamp('revokedAt', { useTz: true });
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['apiKeyId']);
    });
  },
};
