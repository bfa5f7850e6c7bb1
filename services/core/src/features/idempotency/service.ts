import type { JsonObject } from '@bufbuild/protobuf';
import type { Stores } from '../../stores.ts';

/** How long a completed answer is replayed. */
const TTL_MS = 24 * 60 * 60 * 1000;
/** An in-progress record older than this belongs to a crashed request; a retry may take it over. */
const STALE_LOCK_MS = 60 * 1000;

/** What the gateway does with a request carrying an Idempotency-Key. */
export type BeginResult =
  | { state: 'started' }
  | { state: 'replay'; status: number; body?: JsonObject; headers?: JsonObject }
  | { state: 'mismatch' }
  | { state: 'in_use' };

/**
 * Idempotency-Key records (docs/decisions-api.md): scoped to the API key, replayed for 24 hours.
 * The first request with a key starts; a repeat with the same fingerprint replays the
 * answer once complete (in_use before), with another fingerprint is a mismatch; an
 * expired record, or one in progress for over a minute, is taken over. Rules only;
 * SQL is in the store.
 */
export function createIdempotencyService(stores: Stores, clock: { now: () => number } = { now: Date.now }) {
  return {
    async begin(apiKeyId: string, key: string, fingerprint: string): Promise<BeginResult> {
      return stores.transaction(async (tx) => {
        const expiresAt = () => new Date(clock.now() + TTL_MS);
        if (await tx.idempotency.insertIfAbsent(apiKeyId, key, fingerprint, expiresAt())) return { state: 'started' } as const;
        const row = await tx.idempotency.findLocked(apiKeyId, key);
        const expired = !row || new Date(row.expiresAt).getTime() < clock.now();
        const stale = row?.state === 'in_progress' && clock.now() - new Date(row.lockedAt).getTime() > STALE_LOCK_MS;
        if (!row || expired || stale) {
          await tx.idempotency.restart(apiKeyId, key, fingerprint, expiresAt());
          return { state: 'started' } as const;
        }
        if (row.fingerprint !== fingerprint) return { state: 'mismatch' } as const;
        if (row.state === 'in_progress') return { state: 'in_use' } as const;
        return {
          state: 'replay',
          status: row.status ?? 0,
          body: row.body ?? undefined,
          headers: row.headers ?? undefined,
        } as const;
      });
    },
    /** Stores the answer of a started request, to replay. */
    async complete(apiKeyId: string, key: string, status: number, body: JsonObject | undefined, headers: JsonObject | undefined) {
      await stores.idempotency.complete(apiKeyId, key, status, body, headers);
    },
    /** Forgets a started request that failed, so that a retry runs it. */
    async release(apiKeyId: string, key: string) {
      await stores.idempotency.release(apiKeyId, key);
    },
    /** Drops expired records (start.ts runs it every 10 minutes). */
    async sweep() {
      await stores.idempotency.sweep();
    },
  };
}
