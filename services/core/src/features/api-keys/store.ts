import { type Knex } from '@cluster/db';
import { findById } from '../../shared/find-by-id.ts';

/** An api_keys row as stored (keyHash included: never answered). */
export type ApiKeyRow = Record<string, unknown> & {
  id: string;
  organizationId: string;
  prefix: string;
  scope: string;
  scopedProjectId: string | null;
  revokedAt: Date | null;
};

/** A key (and its hash) about to be stored; `permissions` null: the role's defaults. */
export interface NewApiKey {
  organizationId: string;
  createdByUserId: string;
  name: string | null;
  prefix: string;
  keyHash: Buffer;
  scope: string;
  scopedProjectId: string | null;
  permissions: string[] | null;
}

/**
 * The credentials the admin CLI mints, in Postgres: API keys (minted and revoked
 * by the operator) and settings sessions. Both are stored hashed.
 */
export interface ApiKeyStore {
  insert(key: NewApiKey): Promise<ApiKeyRow>;
  /** A key by id (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: boolean }): Promise<ApiKeyRow | undefined>;
  /** Marks a key revoked now. */
  revoke(id: string): Promise<ApiKeyRow>;
  /** A settings session of a user, by the hash of its token. */
  insertSession(session: { tokenHash: string; userId: string; expiresAt: Date }): Promise<void>;
}

/** The knex implementation of ApiKeyStore. */
export function createApiKeyStore(db: Knex): ApiKeyStore {
  return {
    async insert(key) {
      const [row] = await db('api_keys')
        .insert({ ...key, permissions: key.permissions ? JSON.stringify(key.permissions) : null })
        .returning('*');
      return row as ApiKeyRow;
    },
    find(id, opts = {}) {
      return findById<ApiKeyRow>(db, 'api_keys', id, opts.lock ? 'update' : undefined);
    },
    async revoke(id) {
      const [row] = await db('api_keys').where({ id }).update({ revokedAt: db.fn.now() }).returning('*');
      return row as ApiKeyRow;
    },
    async insertSession(session) {
      await db('sessions').insert(session);
    },
  };
}
