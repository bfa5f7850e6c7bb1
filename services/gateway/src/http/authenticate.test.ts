import { describe, expect, it } from 'vitest';
import { reasonOf } from '@cluster/platform/test-kit';
import { create } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { DomainError, toConnectError } from '@cluster/platform';
import { ActorSchema, type AuthService } from '@cluster/proto';
import { apiKeyOf, createAuthenticator } from './authenticate.ts';
import type { GatewayContext } from './context.ts';
import { createMemoryRateLimiter } from './rate-limit.ts';

describe('apiKeyOf (pipeline step 2)', () => {
  it('takes the Bearer token first, in any case of the scheme, trimmed', () => {
    expect(apiKeyOf('Bearer  ak_1 ', 'ak_2')).toBe('ak_1');
    expect(apiKeyOf('bearer ak_1', '')).toBe('ak_1');
  });

  it('falls back to X-API-Key when Authorization holds no Bearer token', () => {
    expect(apiKeyOf('Basic dXNlcg==', ' ak_2 ')).toBe('ak_2');
    expect(apiKeyOf('Bearer    ', 'ak_2')).toBe('ak_2');
    expect(apiKeyOf('', '')).toBe('');
  });
});

/** A request from `ip` with `key`, as the authenticator reads it. */
function request(key: string, ip = '10.0.0.1'): GatewayContext {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return { ip, get: (name: string) => headers[name] ?? '', state: { requestId: 'r' } } as unknown as GatewayContext;
}

/** An AuthService client that knows the keys in `valid` and counts its calls. */
function fakeAuth(valid: Set<string>) {
  const calls: string[] = [];
  const client = {
    async authenticate({ key }: { key: string }) {
      calls.push(key);
      if (!valid.has(key)) throw toConnectError(new DomainError('invalid_key', 'API key not recognised'));
      return { apiEnabled: true, actor: create(ActorSchema, { apiKeyId: `id-${key}`, organizationId: 'o' }) };
    },
  } as unknown as Client<typeof AuthService>;
  return { client, calls };
}

describe('authenticator (pipeline step 2)', () => {
  it('asks the core once for a key, then answers from memory until the entry expires, fresh, or forgotten', async () => {
    let now = 0;
    const { client, calls } = fakeAuth(new Set(['good']));
    const auth = createAuthenticator({
      auth: client,
      failures: createMemoryRateLimiter(5),
      cacheTtlMs: 60_000,
      clock: () => now,
    });
    expect(await auth.authenticate(request('good'), { fresh: false })).toMatchObject({ cached: false });
    expect(await auth.authenticate(request('good'), { fresh: false })).toMatchObject({ cached: true });
    expect(calls).toEqual(['good']);
    expect(await auth.authenticate(request('good'), { fresh: true })).toMatchObject({ cached: false });
    auth.forget(request('good'));
    expect(await auth.authenticate(request('good'), { fresh: false })).toMatchObject({ cached: false });
    now += 60_001;
    expect(await auth.authenticate(request('good'), { fresh: false })).toMatchObject({ cached: false });
    expect(calls).toHaveLength(4);
  });

  it('answers 401 missing_key without a key, and asks nothing', async () => {
    const { client, calls } = fakeAuth(new Set());
    const auth = createAuthenticator({ auth: client, failures: createMemoryRateLimiter(5) });
    expect(await reasonOf(auth.authenticate(request(''), { fresh: false }))).toBe('missing_key');
    expect(calls).toEqual([]);
  });

  it('refuses an address with 429 once it failed too often, before any lookup; other addresses and known keys go on', async () => {
    const { client, calls } = fakeAuth(new Set(['good', 'later']));
    const auth = createAuthenticator({ auth: client, failures: createMemoryRateLimiter(3) });
    await auth.authenticate(request('good'), { fresh: false });
    for (let i = 0; i < 3; i++)
      expect(await reasonOf(auth.authenticate(request(`bad${i}`), { fresh: false }))).toBe('invalid_key');
    expect(await reasonOf(auth.authenticate(request('bad3'), { fresh: false }))).toBe('rate_limit');
    expect(await reasonOf(auth.authenticate(request('later'), { fresh: false }))).toBe('rate_limit');
    expect(calls).toEqual(['good', 'bad0', 'bad1', 'bad2']);
    // A key already known is served from memory: nothing to look up.
    expect(await auth.authenticate(request('good'), { fresh: false })).toMatchObject({ cached: true });
    expect(await auth.authenticate(request('later', '10.0.0.2'), { fresh: false })).toMatchObject({ cached: false });
  });
});
