import { describe, expect, it } from 'vitest';
import { runUntilExit } from './support/processes.ts';

// Secure by default (issue 30, docs/security.md): a service started without CLUSTER_ENV=development
// and without its keys refuses to start, naming what is missing, instead of running on the
// development keys anyone can mint.

/** Runs a service's built main.js with `env` (CLUSTER_ENV unset unless given) until it exits. */
function start(service: 'core' | 'delivery' | 'evidence' | 'gateway', env: Record<string, string> = {}) {
  return runUntilExit(service, {
    CLUSTER_ENV: '',
    SERVICE_SIGNING_KEY: '',
    SERVICE_PUBLIC_KEYS: '',
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    ...env,
  });
}

describe('a service without CLUSTER_ENV=development', () => {
  it('refuses to start without keys, each service naming the setting', async () => {
    const results = await Promise.all((['core', 'delivery', 'evidence', 'gateway'] as const).map((s) => start(s)));
    for (const { code, stderr } of results) {
      expect(code).toBe(1);
      expect(stderr).toContain(
        'ConfigError: SERVICE_SIGNING_KEY and SERVICE_PUBLIC_KEYS are required unless CLUSTER_ENV=development',
      );
    }
  });

  it('refuses a SERVICE_PUBLIC_KEYS list that holds no key (issue 37)', async () => {
    const seed = Buffer.alloc(32, 7).toString('base64');
    const results = await Promise.all(
      (['core', 'delivery', 'evidence', 'gateway'] as const).map((s) =>
        start(s, { SERVICE_SIGNING_KEY: seed, SERVICE_PUBLIC_KEYS: ' , ' }),
      ),
    );
    for (const { code, stderr } of results) {
      expect(code).toBe(1);
      expect(stderr).toContain('ConfigError: SERVICE_PUBLIC_KEYS lists no key');
    }
  });

  it('refuses private webhook destinations, and a mistyped switch', async () => {
    const [privateDestinations, typo] = await Promise.all([
      start('delivery', { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true' }),
      start('core', { CLUSTER_ENV: 'dev' }),
    ]);
    expect(privateDestinations.code).toBe(1);
    expect(privateDestinations.stderr).toContain(
      'ConfigError: WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=true is refused unless CLUSTER_ENV=development',
    );
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('ConfigError: CLUSTER_ENV must be one of development, production, got dev');
  });
});
