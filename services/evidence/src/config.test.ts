import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEV_EVIDENCE_SIGNING_SEED, evidenceSigningSeeds } from './config.ts';

afterEach(() => vi.unstubAllEnvs());
const seeds = (value: string | undefined, production: boolean) => {
  vi.stubEnv('EVIDENCE_SIGNING_KEY', value);
  return () => evidenceSigningSeeds(production);
};

describe('EVIDENCE_SIGNING_KEY', () => {
  it('falls back to the development seed outside production, and is required in production', () => {
    expect(seeds(undefined, false)()).toEqual([DEV_EVIDENCE_SIGNING_SEED]);
    expect(seeds(undefined, true)).toThrow(/EVIDENCE_SIGNING_KEY is required when NODE_ENV=production/);
  });

  it('is a keyring NEW,OLD: the first signs, every one is kept to publish', () => {
    const [next, old] = [randomBytes(32), randomBytes(32)];
    expect(seeds(`${next.toString('base64')},${old.toString('base64')}`, true)()).toEqual([next, old]);
  });

  it('refuses the development seed, a weak or malformed key in production, and any entry not of 32 bytes', () => {
    expect(seeds(DEV_EVIDENCE_SIGNING_SEED.toString('base64'), true)).toThrow(/public development key/);
    expect(seeds(`${randomBytes(32).toString('base64')},${DEV_EVIDENCE_SIGNING_SEED.toString('base64')}`, true)).toThrow(
      /public development key/,
    );
    expect(seeds(Buffer.alloc(32, 7).toString('base64'), true)).toThrow(/one byte repeated/);
    expect(seeds('CHANGE_ME', true)).toThrow(/placeholder/);
    expect(seeds(randomBytes(16).toString('base64'), false)).toThrow(/key 1 of EVIDENCE_SIGNING_KEY is not 32 bytes/);
  });
});
