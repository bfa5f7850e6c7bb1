import type { EvidenceKeyStore } from './store.ts';

/** EvidenceKeyStore in memory, for unit tests. */
export function createFakeEvidenceKeyStore(): EvidenceKeyStore & { revoked: string[] } {
  const current = new Map<string, string>();
  const revoked: string[] = [];
  return {
    revoked,
    async current(organizationId) {
      return current.get(organizationId);
    },
    async replace(organizationId, sealedKey) {
      const old = current.get(organizationId);
      if (old) revoked.push(old);
      current.set(organizationId, sealedKey);
      return old;
    },
  };
}
