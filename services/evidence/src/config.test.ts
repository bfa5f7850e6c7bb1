import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEV_SEALING_KEYS } from '@cluster/platform';
import { DEV_EVIDENCE_SIGNING_SEED, evidenceSigningSeeds } from './config.ts';

afterEach(() => vi.unstubAllEnvs());
/** EVIDENCE_SIGNING_KEY read in development (true) or anywhere else (false). */
const seeds = (value: string | undefined, development: boolean) => {
  vi.stubEnv('EVIDENCE_SIGNING_KEY', value);
  return () => evidenceSigningSeeds(development);
};

describe('EVIDENCE_SIGNING_KEY', () => {
  it('falls back to the development seed in development, and is required anywhere else', () => {
    expect(seeds(undefined, true)()).toEqual([DEV_EVIDENCE_SIGNING_SEED]);
    expect(seeds(undefined, false)).toThrow(/EVIDENCE_SIGNING_KEY is required unless CLUSTER_ENV=development/);
  });

  it('is a keyring NEW,OLD: the first signs, every one is kept to publish', () => {
    const [next, old] = [randomBytes(32), randomBytes(32)];
    expect(seeds(`${next.toString('base64')},${old.toString('base64')}`, false)()).toEqual([next, old]);
  });

  it('refuses a development key (of any role), a weak or malformed key outside development, and any entry not of 32 bytes', () => {
    expect(seeds(DEV_EVIDENCE_SIGNING_SEED.toString('base64'), false)).toThrow(
      /EVIDENCE_SIGNING_KEY holds a public development key/,
    );
    expect(seeds(`${randomBytes(32).toString('base64')},${DEV_EVIDENCE_SIGNING_SEED.toString('base64')}`, false)).toThrow(
      /EVIDENCE_SIGNING_KEY holds a public development key/,
    );
    expect(seeds(DEV_SEALING_KEYS.EVIDENCE_SECRET_KEY, false)).toThrow(/EVIDENCE_SIGNING_KEY holds a public development key/);
    expect(seeds(Buffer.alloc(32, 7).toString('base64'), false)).toThrow(/one byte repeated/);
    expect(seeds('CHANGE_ME', false)).toThrow(/placeholder/);
    expect(seeds(randomBytes(16).toString('base64'), true)).toThrow(/key 1 of EVIDENCE_SIGNING_KEY is not 32 bytes/);
    // A retired entry too (it stays published): 32 zero bytes are no key.
    expect(seeds(`${randomBytes(32).toString('base64')},${Buffer.alloc(32).toString('base64')}`, false)).toThrow(
      /key 2 of EVIDENCE_SIGNING_KEY is one byte repeated/,
    );
  });
});
