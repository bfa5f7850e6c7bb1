import { fakePage } from '@cluster/db/test-kit';
import type { PortalSessionRow, PortalSettingsRow, PortalStore } from './store.ts';

/** The store's `live` (store.ts): not ended, its link openable or the session unexpired. */
const isLive = (r: PortalSessionRow, now: Date) =>
  !r.endedAt && ((!r.openedAt && r.linkExpiresAt > now) || (!!r.expiresAt && r.expiresAt > now));

/** An in-memory PortalStore for unit tests of the rules. */
export function createFakePortalStore(): PortalStore & { rows: PortalSessionRow[] } {
  const rows: PortalSessionRow[] = [];
  const settings = new Map<string, PortalSettingsRow>();
  return {
    rows,
    async insert(values) {
      const row: PortalSessionRow = {
        ...values,
        openedAt: null,
        sessionHash: null,
        csrfHash: null,
        expiresAt: null,
        createdAt: new Date(),
        endedAt: null,
      };
      rows.push(row);
      return { ...row };
    },
    async open(linkHash, sessionHash, csrfHash, now) {
      const row = rows.find((r) => r.linkHash === linkHash && !r.openedAt && !r.endedAt && r.linkExpiresAt > now);
      if (!row) return undefined;
      Object.assign(row, {
        openedAt: now,
        sessionHash,
        csrfHash,
        expiresAt: new Date(now.getTime() + row.lifetimeSeconds * 1000),
      });
      return { ...row };
    },
    async findLive(sessionHash, now) {
      const row = rows.find((r) => r.sessionHash === sessionHash && !r.endedAt && r.expiresAt && r.expiresAt > now);
      return row && { ...row };
    },
    async findLiveById(id, now) {
      const row = rows.find((r) => r.id === id && r.openedAt && !r.endedAt && r.expiresAt && r.expiresAt > now);
      return row && { ...row };
    },
    async listLive(organizationId, now, page) {
      const found = fakePage(
        rows.filter((r) => r.organizationId === organizationId && isLive(r, now)),
        page,
      );
      // The store's select: no hash of any token.
      return {
        ...found,
        data: found.data.map(({ linkHash: _l, sessionHash: _s, csrfHash: _c, lifetimeSeconds: _t, endedAt: _e, ...r }) => r),
      };
    },
    async end(organizationId, id, now) {
      const row = rows.find((r) => r.id === id && r.organizationId === organizationId && isLive(r, now));
      if (!row) return undefined;
      Object.assign(row, {
        endedAt: now,
        expiresAt: row.expiresAt && (row.expiresAt < now ? row.expiresAt : now),
        linkExpiresAt: row.linkExpiresAt < now ? row.linkExpiresAt : now,
      });
      return { ...row };
    },
    async settings(organizationId) {
      return settings.get(organizationId);
    },
    async saveSettings(organizationId, frameAncestors) {
      const row = { organizationId, frameAncestors: [...frameAncestors], updatedAt: new Date() };
      settings.set(organizationId, row);
      return row;
    },
    async deleteExpired(before) {
      const gone = rows.filter((r) => r.linkExpiresAt < before && (!r.expiresAt || r.expiresAt < before));
      for (const r of gone) rows.splice(rows.indexOf(r), 1);
      return gone.length;
    },
  };
}
