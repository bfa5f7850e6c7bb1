import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, createRouterTransport } from '@connectrpc/connect';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError, createLogger, createMetrics, toConnectError } from '@cluster/platform';
import { AuthService } from '@cluster/proto';
import { buildGateway } from '../app.ts';
import { createClients } from '../clients.ts';
import { routes } from '../routes.ts';
import { createMemoryRateLimiter } from './rate-limit.ts';

// Whose failed authentications count together (docs/security.md, "At the edge"): the real
// pipeline in process, a core that knows no key, and one failure allowed per address.
const auth = createClient(
  AuthService,
  createRouterTransport(({ service }) =>
    service(AuthService, {
      authenticate() {
        throw toConnectError(new DomainError('invalid_key', 'API key not recognised'));
      },
      getMe() {
        throw new Error('not called');
      },
    }),
  ),
);
const servers: http.Server[] = [];

/** A gateway behind `trustedProxyHops` proxies; its base URL. */
async function gateway(trustedProxyHops: number): Promise<string> {
  const unreachable = 'http://127.0.0.1:1';
  const app = buildGateway({
    clients: { ...createClients({ core: unreachable, delivery: unreachable, evidence: unreachable }, async () => ''), auth },
    routes,
    limiter: createMemoryRateLimiter(1000),
    authFailures: createMemoryRateLimiter(1),
    trustedProxyHops,
    mcp: { allowedOrigins: [], privacyPolicyUrl: 'https://example.test/privacy', authorizationServers: [] },
    logger: createLogger('gateway', 'silent'),
    metrics: createMetrics('gateway'),
    ready: async () => ({}),
  });
  const handle = app.callback();
  const server = http.createServer((req, res) => void handle(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The status of a GET /me with an unknown key, forwarded for `forwardedFor`. */
async function attempt(base: string, forwardedFor: string): Promise<number> {
  const res = await fetch(`${base}/api/v1/me`, {
    headers: { authorization: 'Bearer fbk_unknown', 'x-forwarded-for': forwardedFor },
  });
  return res.status;
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('the client address of the failed-authentication limit', () => {
  it('is the peer with no trusted proxy: X-Forwarded-For, which anyone can write, is ignored', async () => {
    const base = await gateway(0);
    expect(await attempt(base, '203.0.113.1')).toBe(401);
    expect(await attempt(base, '203.0.113.2')).toBe(429);
  });

  it("is the proxy's entry with one trusted proxy: each forwarded client has its own count", async () => {
    const base = await gateway(1);
    expect(await attempt(base, '203.0.113.1')).toBe(401);
    expect(await attempt(base, '198.51.100.9, 203.0.113.2')).toBe(401);
    expect(await attempt(base, '203.0.113.1')).toBe(429);
  });
});
