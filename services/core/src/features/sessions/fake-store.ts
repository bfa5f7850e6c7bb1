import type { SessionStore, SessionUser } from './store.ts';

/** SessionStore over an array, for unit tests. */
export function createFakeSessionStore(rows: (SessionUser & { tokenHash: string; expiresAt: Date })[] = []) {
  const store: SessionStore & { rows: typeof rows } = {
    rows,
    async findLive(tokenHash, now) {
      const row = rows.find((r) => r.tokenHash === tokenHash && r.expiresAt > now);
      return row && { userId: row.userId, organizationId: row.organizationId, role: row.role };
    },
  };
  return store;
}
