import { describe, expect, it } from 'vitest';
import { createSecretBox } from '@cluster/platform';
import { createFakeEvidenceKeyStore } from './fake-store.ts';
import { createEvidenceKeyService, evidenceKeyPrefix } from './service.ts';

const box = createSecretBox(['test key material'], { salt: 'test', info: 'test' });

describe('evidence keys', () => {
  it('show a prefix derived from a hash of the key, never its own characters', async () => {
    const keys = createEvidenceKeyService(createFakeEvidenceKeyStore(), box);
    const first = await keys.rotate('o1');
    expect(first.prefix).toMatch(/^fbe_[0-9a-f]{12}$/);
    expect(first.key.slice(4)).not.toContain(first.prefix.slice(4));
    expect(first.prefix).toBe(evidenceKeyPrefix(first.key));
    expect(await keys.status('o1')).toEqual({ exists: true, prefix: first.prefix });
    const second = await keys.rotate('o1');
    expect(second.revokedPrefix).toBe(first.prefix);
    expect((await keys.sign('o1', Buffer.from('x')))?.prefix).toBe(second.prefix);
    expect(await keys.status('o2')).toEqual({ exists: false, prefix: '' });
  });
});
