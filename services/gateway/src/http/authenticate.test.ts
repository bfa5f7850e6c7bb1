import { describe, expect, it } from 'vitest';
import { reasonOf } from '@cluster/platform/test-kit';
import { create } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { DomainError, toConnectError } from '@cluster/platform';
import { ActorSchema, type AuthService } from '@cluster/proto';
import { apiKeyOf, createAuthenticator } from './authenticate.ts';
import type { GatewayContext } from './context.ts';
import { createFailureLimit } from './failure-limit.ts';
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
      failureLimit: failuresPerMinute(5),
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
    const auth = createAuthenticator({ auth: client, failureLimit: failuresPerMinute(5) });
    expect(await reasonOf(auth.authenticate(request(''), { fresh: false }))).toBe('missing_key');
    expect(calls).toEqual([]);
  });

  it('once an address failed too often, answers its failed keys 429 (cheaply when it can) and lets a valid key through', async () => {
    const [good, later] = [shaped('good'), shaped('later')];
    const { client, calls } = fakeAuth(new Set([good, later]));
    const auth = createAuthenticator({ auth: client, failureLimit: failuresPerMinute(3) });
    await auth.authenticate(request(good), { fresh: false });
    for (let i = 0; i < 3; i++)
      expect(await reasonOf(auth.authenticate(request(shaped(`bad${i}`)), { fresh: false }))).toBe('invalid_key');
    expect(calls).toHaveLength(4);
    // Over the limit: a key never seen is checked once (that is what lets a valid key through), and refused with 429...
    expect(await reasonOf(auth.authenticate(request(shaped('bad3')), { fresh: false }))).toBe('rate_limit');
    expect(calls).toHaveLength(5);
    // ...again without a check, as is one refused before the address went over, and a key not of our shape.
    for (const key of [shaped('bad3'), shaped('bad0'), 'nope'])
      expect(await reasonOf(auth.authenticate(request(key), { fresh: false }))).toBe('rate_limit');
    expect(calls).toHaveLength(5);
    // A valid key goes through, a new one or a known one, and asked for fresh too.
    expect(await auth.authenticate(request(later), { fresh: false })).toMatchObject({ cached: false });
    expect(await auth.authenticate(request(good), { fresh: true })).toMatchObject({ cached: false });
    expect(await auth.authenticate(request(good), { fresh: false })).toMatchObject({ cached: true });
    // Another address is not affected: its failure is a 401.
    expect(await reasonOf(auth.authenticate(request(shaped('bad3'), '10.0.0.2'), { fresh: false }))).toBe('invalid_key');
  });
});

/** A key of the API key shape (`fbk_<8>_<40>`) named `name`. */
function shaped(name: string): string {
  return `fbk_${name.padEnd(8, '0')}_${'s'.repeat(40)}`;
}

/** The failure limit at `perMinute` failed authentications per address. */
function failuresPerMinute(perMinute: number) {
  return createFailureLimit({ failures: createMemoryRateLimiter(perMinute) });
}
