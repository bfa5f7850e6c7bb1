import { randomUUID } from 'node:crypto';
import type { ApiKeyRow, ApiKeyStore } from './store.ts';

/** An in-memory ApiKeyStore for unit tests (no Postgres). Reads return copies. */
export function createFakeApiKeyStore(
  rows: ApiKeyRow[] = [],
  sessions: { tokenHash: string; userId: string; expiresAt: Date }[] = [],
): ApiKeyStore & { rows: ApiKeyRow[]; sessions: typeof sessions } {
  return {
    rows,
    sessions,
    async insert(key) {
      const row: ApiKeyRow = { ...key, id: randomUUID(), revokedAt: null, lastUsedAt: null, createdAt: new Date() };
      rows.push(row);
      return { ...row };
    },
    async find(id) {
      const row = rows.find((r) => r.id === id);
      return row && { ...row };
    },
    async revoke(id) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`fake: no api key ${id}`);
      row.revokedAt = new Date();
      return { ...row };
    },
    async insertSession(session) {
      sessions.push({ ...session });
    },
  };
}
