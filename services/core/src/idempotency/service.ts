import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';

const TTL_MS = 24 * 60 * 60 * 1000;
/** An in-progress record older than this belongs to a crashed request; a retry may take it over. */
const STALE_LOCK_MS = 60 * 1000;

export type BeginResult =
  | { state: 'started' }
  | { state: 'replay'; status: number; body?: JsonObject; headers?: JsonObject }
  | { state: 'mismatch' }
  | { state: 'in_use' };

/** Idempotency-Key records (api-decisions.md): scoped to the API key, replayed for 24 hours. */
export function createIdempotencyService(db: Knex) {
  return {
    async begin(apiKeyId: string, key: string, fingerprint: string): Promise<BeginResult> {
      return db.transaction(async (trx) => {
        const inserted = await trx('idempotency_keys')
          .insert({ apiKeyId, key, fingerprint, state: 'in_progress', expiresAt: new Date(Date.now() + TTL_MS) })
          .onConflict(['apiKeyId', 'key'])
          .ignore()
          .returning('key');
        if (inserted.length) return { state: 'started' } as const;
        const row = await trx('idempotency_keys').where({ apiKeyId, key }).forUpdate().first();
        const expired = !row || new Date(row.expiresAt).getTime() < Date.now();
        const stale = row?.state === 'in_progress' && Date.now() - new Date(row.lockedAt).getTime() > STALE_LOCK_MS;
        if (expired || stale) {
          await trx('idempotency_keys')
            .where({ apiKeyId, key })
            .update({ fingerprint, state: 'in_progress', status: null, body: null, headers: null, lockedAt: trx.fn.now(), expiresAt: new Date(Date.now() + TTL_MS) });
          return { state: 'started' } as const;
        }
        if (row.fingerprint !== fingerprint) return { state: 'mismatch' } as const;
        if (row.state === 'in_progress') return { state: 'in_use' } as const;
        return { state: 'replay', status: row.status, body: row.body ?? undefined, headers: row.headers ?? undefined } as const;
      });
    },
    async complete(apiKeyId: string, key: string, status: number, body: JsonObject | undefined, headers: JsonObject | undefined) {
      await db('idempotency_keys')
        .where({ apiKeyId, key })
        .update({ state: 'done', status, body: body ? JSON.stringify(body) : null, headers: headers ? JSON.stringify(headers) : null });
    },
    async release(apiKeyId: string, key: string) {
      await db('idempotency_keys').where({ apiKeyId, key, state: 'in_progress' }).del();
    },
    /** Drops expired records (run periodically). */
    async sweep() {
      await db('idempotency_keys').where('expiresAt', '<', db.fn.now()).del();
    },
  };
}
