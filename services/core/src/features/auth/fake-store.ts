import type { AuthStore, KeyForAuth } from './store.ts';

/** A key of the fake: its api_keys row joined with its creator's role and organization's switch. */
export type FakeKey = KeyForAuth & { prefix: string; name?: string | null; lastUsedAt?: Date | null };

/** An in-memory AuthStore for unit tests: `keys` as findForAuth reads them, `touched` every lastUsedAt write. */
export function createFakeAuthStore(): AuthStore & { keys: FakeKey[]; touched: string[] } {
  const keys: FakeKey[] = [];
  const touched: string[] = [];
  return {
    keys,
    touched,
    async findForAuth(prefix) {
      const k = keys.find((x) => x.prefix === prefix);
      return k && { ...k };
    },
    async findCurrent(ids) {
      return keys.filter((x) => ids.includes(x.id)).map((k) => ({ ...k }));
    },
    async find(id) {
      const k = keys.find((x) => x.id === id);
      return k && { ...k };
    },
    async touchLastUsed(id) {
      touched.push(id);
      const k = keys.find((x) => x.id === id);
      if (k) k.lastUsedAt = new Date();
    },
  };
}
