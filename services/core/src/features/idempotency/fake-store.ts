import type { IdempotencyRow, IdempotencyStore } from './store.ts';

/** An in-memory IdempotencyStore for unit tests; `now` is the fake database's clock. */
export function createFakeIdempotencyStore(now: () => number = Date.now): IdempotencyStore & { rows: IdempotencyRow[] } {
  const rows: IdempotencyRow[] = [];
  const find = (apiKeyId: string, key: string) => rows.find((r) => r.apiKeyId === apiKeyId && r.key === key);
  // A key taken for a request in progress: what insertIfAbsent writes and restart resets to.
  const inProgress = (fingerprint: string, expiresAt: Date): Omit<IdempotencyRow, 'apiKeyId' | 'key'> => ({
    fingerprint,
    state: 'in_progress',
    status: null,
    body: null,
    headers: null,
    lockedAt: new Date(now()),
    expiresAt,
  });
  return {
    rows,
    async insertIfAbsent(apiKeyId, key, fingerprint, expiresAt) {
      if (find(apiKeyId, key)) return false;
      rows.push({ apiKeyId, key, ...inProgress(fingerprint, expiresAt) });
      return true;
    },
    async findLocked(apiKeyId, key) {
      const row = find(apiKeyId, key);
      return row && { ...row };
    },
    async restart(apiKeyId, key, fingerprint, expiresAt) {
      const row = find(apiKeyId, key);
      if (row) Object.assign(row, inProgress(fingerprint, expiresAt));
    },
    async complete(apiKeyId, key, status, body, headers) {
      const row = find(apiKeyId, key);
      if (row) Object.assign(row, { state: 'done', status, body: body ?? null, headers: headers ?? null });
    },
    async release(apiKeyId, key) {
      const i = rows.findIndex((r) => r.apiKeyId === apiKeyId && r.key === key && r.state === 'in_progress');
      if (i >= 0) rows.splice(i, 1);
    },
    async sweep() {
      for (let i = rows.length - 1; i >= 0; i--) if (rows[i].expiresAt.getTime() < now()) rows.splice(i, 1);
    },
  };
}
