import type { TestCallStore } from './store.ts';

/** An in-memory TestCallStore for unit tests (no Postgres; one process, so the lock has nothing to serialise). */
export function createFakeTestCallStore(): TestCallStore & { calls: { organizationId: string; calledAt: Date }[] } {
  const calls: { organizationId: string; calledAt: Date }[] = [];
  return {
    calls,
    async lock() {},
    async prune(organizationId, before) {
      for (let i = calls.length - 1; i >= 0; i--) {
        if (calls[i].organizationId === organizationId && calls[i].calledAt <= before) calls.splice(i, 1);
      }
    },
    async madeAfter(organizationId, after) {
      return calls
        .filter((c) => c.organizationId === organizationId && c.calledAt > after)
        .map((c) => c.calledAt)
        .sort((a, b) => a.getTime() - b.getTime());
    },
    async add(organizationId, calledAt) {
      calls.push({ organizationId, calledAt });
    },
  };
}
