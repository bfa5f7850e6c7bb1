import type { PortalSessionRow, PortalSettingsRow, PortalStore } from './store.ts';

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
      };
      rows.push(row);
      return { ...row };
    },
    async open(linkHash, sessionHash, csrfHash, now) {
      const row = rows.find((r) => r.linkHash === linkHash && !r.openedAt && r.linkExpiresAt > now);
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
      const row = rows.find((r) => r.sessionHash === sessionHash && r.expiresAt && r.expiresAt > now);
      return row && { ...row };
    },
    async findLiveById(id, now) {
      const row = rows.find((r) => r.id === id && r.openedAt && r.expiresAt && r.expiresAt > now);
      return row && { ...row };
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
