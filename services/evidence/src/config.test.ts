import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEV_SEALING_KEYS } from '@cluster/platform';
import { DEV_EVIDENCE_SIGNING_SEED, evidenceSigningSeeds, readGithubAppConfig } from './config.ts';

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
    // A retired entry too (it stays published): 32 zero bytes, a passphrase, a placeholder are no key.
    const signing = randomBytes(32).toString('base64');
    expect(seeds(`${signing},${Buffer.alloc(32).toString('base64')}`, false)).toThrow(
      /key 2 of EVIDENCE_SIGNING_KEY is one byte repeated/,
    );
    expect(seeds(`${signing},${Buffer.from('correct horse battery staple 123').toString('base64')}`, false)).toThrow(
      /key 2 of EVIDENCE_SIGNING_KEY decodes to/,
    );
    expect(seeds(`${signing},CHANGE_ME`, false)).toThrow(/key 2 of EVIDENCE_SIGNING_KEY is a placeholder/);
    expect(seeds(`${signing},${randomBytes(31).toString('base64')}`, false)).toThrow(
      /key 2 of EVIDENCE_SIGNING_KEY decodes to 31 bytes/,
    );
  });
});

describe('the GitHub App (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_API_URL)', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const app = (env: Record<string, string | undefined>, development = false) => {
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    return () => readGithubAppConfig(development);
  };

  it('is none when unset, and both or neither of the id and the key', () => {
    expect(app({ GITHUB_APP_ID: undefined, GITHUB_APP_PRIVATE_KEY: undefined })()).toBeUndefined();
    expect(app({ GITHUB_APP_ID: '123' })).toThrow(/GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY go together/);
    expect(app({ GITHUB_APP_ID: undefined, GITHUB_APP_PRIVATE_KEY: rsa })).toThrow(/go together/);
  });

  it('reads the id, an RSA key (newlines as \\n too) and GitHub by default; GITHUB_API_URL must be https outside development', () => {
    expect(app({ GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: rsa.replace(/\n/g, '\\n') })()).toEqual({
      appId: '123',
      privateKey: rsa,
      apiUrl: 'https://api.github.com',
      checkTimeoutMs: 5000,
    });
    const enterprise = { GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: rsa, GITHUB_API_URL: 'http://ghe.internal/api/v3' };
    expect(app(enterprise)).toThrow(/GITHUB_API_URL must be https/);
    expect(app(enterprise, true)()).toMatchObject({ apiUrl: 'http://ghe.internal/api/v3' });
  });

  it('refuses an id that is not a number, a key that is not PEM or not RSA', () => {
    expect(app({ GITHUB_APP_ID: 'my-app', GITHUB_APP_PRIVATE_KEY: rsa })).toThrow(/numeric id/);
    expect(app({ GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: 'CHANGE_ME' })).toThrow(/not a PEM private key/);
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(app({ GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: ed })).toThrow(/ed25519 key: a GitHub App's key is RSA/);
  });
});
