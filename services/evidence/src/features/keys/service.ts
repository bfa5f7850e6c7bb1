import { createHmac, randomBytes } from 'node:crypto';
import type { SecretBox } from '@cluster/platform';
import type { EvidenceKeyStore } from './store.ts';

/** Characters of a key shown again after creation: its prefix, to tell keys apart. */
const PREFIX_LENGTH = 12;

/**
 * Organizations' evidence keys: created or rotated (the previous key revoked, the new one
 * returned once and stored sealed), and used to sign a package's exact bytes.
 */
export function createEvidenceKeyService(store: EvidenceKeyStore, box: SecretBox) {
  return {
    /** Whether the organization has a key, and its prefix (the key itself is never shown again). */
    async status(organizationId: string): Promise<{ exists: boolean; prefix: string }> {
      const row = await store.current(organizationId);
      return { exists: row !== undefined, prefix: row?.prefix ?? '' };
    },
    /** A new key (shown this once); `revokedPrefix`: the key it replaced, if any. */
    async rotate(organizationId: string): Promise<{ key: string; prefix: string; revokedPrefix?: string }> {
      const key = `fbe_${randomBytes(32).toString('base64url')}`;
      const prefix = key.slice(0, PREFIX_LENGTH);
      const revokedPrefix = await store.replace(organizationId, { prefix, sealedKey: box.seal(key, organizationId) });
      return { key, prefix, ...(revokedPrefix ? { revokedPrefix } : {}) };
    },
    /** The signature of `bytes` under the organization's key: hex HMAC-SHA256; undefined without a key. */
    async sign(organizationId: string, bytes: Uint8Array): Promise<{ signature: string; prefix: string } | undefined> {
      const row = await store.current(organizationId);
      if (!row) return undefined;
      const key = box.open(row.sealedKey, organizationId);
      return { signature: createHmac('sha256', key).update(bytes).digest('hex'), prefix: row.prefix };
    },
  };
}
