import type { EvidenceKeyRow, EvidenceKeyStore } from './store.ts';

/** EvidenceKeyStore in memory, for unit tests. */
export function createFakeEvidenceKeyStore(): EvidenceKeyStore & { revoked: EvidenceKeyRow[] } {
  const current = new Map<string, EvidenceKeyRow>();
  const revoked: EvidenceKeyRow[] = [];
  return {
    revoked,
    async current(organizationId) {
      return current.get(organizationId);
    },
    async replace(organizationId, key) {
      const old = current.get(organizationId);
      if (old) revoked.push(old);
      current.set(organizationId, key);
      return old?.prefix;
    },
  };
}
