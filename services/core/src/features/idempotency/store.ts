import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';

/** An Idempotency-Key record as stored: in progress (lockedAt: since when) or done (the answer to replay). */
export interface IdempotencyRow {
  apiKeyId: string;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  status: number | null;
  body: JsonObject | null;
  headers: JsonObject | null;
  lockedAt: Date;
  expiresAt: Date;
}

/** Idempotency-Key records in Postgres: all SQL of the feature. */
export interface IdempotencyStore {
  /** Inserts an in-progress record (lockedAt now) unless the key has one; whether it did. */
  insertIfAbsent(apiKeyId: string, key: string, fingerprint: string, expiresAt: Date): Promise<boolean>;
  /** The key's record, locked for the transaction. */
  findLocked(apiKeyId: string, key: string): Promise<IdempotencyRow | undefined>;
  /** Makes the key's record a new in-progress one (lockedAt now): a takeover of an expired or abandoned record. */
  restart(apiKeyId: string, key: string, fingerprint: string, expiresAt: Date): Promise<void>;
  /** Stores the answer to replay. */
  complete(
    apiKeyId: string,
    key: string,
    status: number,
    body: JsonObject | undefined,
    headers: JsonObject | undefined,
  ): Promise<void>;
  /** Drops the key's record if still in progress (the request failed: a retry may run). */
  release(apiKeyId: string, key: string): Promise<void>;
  /** Drops every expired record. */
  sweep(): Promise<void>;
}

/** The knex implementation of IdempotencyStore. */
export function createIdempotencyStore(db: Knex): IdempotencyStore {
  return {
    async insertIfAbsent(apiKeyId, key, fingerprint, expiresAt) {
      const inserted = await db('idempotency_keys')
        .insert({ apiKeyId, key, fingerprint, state: 'in_progress', expiresAt })
        .onConflict(['apiKeyId', 'key'])
        .ignore()
        .returning('key');
      return inserted.length > 0;
    },
    async findLocked(apiKeyId, key) {
      return (await db('idempotency_keys').where({ apiKeyId, key }).forUpdate().first()) as IdempotencyRow | undefined;
    },
    async restart(apiKeyId, key, fingerprint, expiresAt) {
      await db('idempotency_keys')
        .where({ apiKeyId, key })
        .update({ fingerprint, state: 'in_progress', status: null, body: null, headers: null, lockedAt: db.fn.now(), expiresAt });
    },
    async complete(apiKeyId, key, status, body, headers) {
      await db('idempotency_keys')
        .where({ apiKeyId, key })
        .update({
          state: 'done',
          status,
          body: body ? JSON.stringify(body) : null,
          headers: headers ? JSON.stringify(headers) : null,
        });
    },
    async release(apiKeyId, key) {
      await db('idempotency_keys').where({ apiKeyId, key, state: 'in_progress' }).del();
    },
    async sweep() {
      await db('idempotency_keys').where('expiresAt', '<', db.fn.now()).del();
    },
  };
}
