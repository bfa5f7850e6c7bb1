import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { SecretBox } from '@cluster/platform';
import type { EvidenceKeyStore } from './store.ts';

/**
 * The display prefix of an evidence key, to tell keys apart: `fbe_` and 12 hex digits of the
 * key's SHA-256. Derived from a hash, never from the key's own characters, so showing it (in the
 * settings, a response header, the audit trail) tells nothing about the secret.
 */
export function evidenceKeyPrefix(key: string): string {
  return `fbe_${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 12)}`;
}

/**
 * Organizations' evidence keys: created or rotated (the previous key revoked, the new one
 * returned once and stored sealed), and used to sign a package's exact bytes.
 */
export function createEvidenceKeyService(store: EvidenceKeyStore, box: SecretBox) {
  const open = (sealed: string, organizationId: string) => box.open(sealed, organizationId);
  return {
    /** Whether the organization has a key, and its prefix (the key itself is never shown again). */
    async status(organizationId: string): Promise<{ exists: boolean; prefix: string }> {
      const sealed = await store.current(organizationId);
      return { exists: sealed !== undefined, prefix: sealed ? evidenceKeyPrefix(open(sealed, organizationId)) : '' };
    },
    /** A new key (shown this once); `revokedPrefix`: the key it replaced, if any. */
    async rotate(organizationId: string): Promise<{ key: string; prefix: string; revokedPrefix?: string }> {
      const key = `fbe_${randomBytes(32).toString('base64url')}`;
      const revoked = await store.replace(organizationId, box.seal(key, organizationId));
      const prefix = evidenceKeyPrefix(key);
      return { key, prefix, ...(revoked ? { revokedPrefix: evidenceKeyPrefix(open(revoked, organizationId)) } : {}) };
    },
    /** The signature of `bytes` under the organization's key: hex HMAC-SHA256; undefined without a key. */
    async sign(organizationId: string, bytes: Uint8Array): Promise<{ signature: string; prefix: string } | undefined> {
      const sealed = await store.current(organizationId);
      if (!sealed) return undefined;
      const key = open(sealed, organizationId);
      return { signature: createHmac('sha256', key).update(bytes).digest('hex'), prefix: evidenceKeyPrefix(key) };
    },
  };
}
