import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRouterTransport } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createMetrics, createRpcTransport, jsonBytes } from '@cluster/platform';
import { AuthService } from '@cluster/proto';
import { buildGateway } from '../app.ts';
import { clientsOn } from '../clients.ts';
import { routes } from '../routes.ts';
import { createMemoryRateLimiter } from './rate-limit.ts';

// The real gateway pipeline in process, its core's AuthService in memory (key `good` is an
// admin with every permission; key `boom` fails with an unknown error) and every other
// backend unreachable: each kind of answer, and the log lines they leave.
const permissions = [...new Set(routes.flatMap((r) => (r.permission ? [r.permission] : [])))];
const auth = createRouterTransport(({ service }) =>
  service(AuthService, {
    authenticate(req) {
      if (req.key === 'boom') throw new Error('boom');
      const actor = { apiKeyId: 'k1', organizationId: 'o1', userId: 'u1', role: 'admin', scope: 'organization', permissions };
      return { actor, apiEnabled: true };
    },
    getMe: () => ({ resource: jsonBytes({ id: 'k1' }) }),
  }),
);
const unreachable = createRpcTransport('http://127.0.0.1:1', { sign: async () => 'no-token', audience: 'core' });
const lines: Record<string, unknown>[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  const app = buildGateway({
    clients: clientsOn((service) => (service.typeName === AuthService.typeName ? auth : unreachable)),
    routes,
    limiter: createMemoryRateLimiter(1000),
    authFailures: createMemoryRateLimiter(1000),
    mcp: { allowedOrigins: [], privacyPolicyUrl: 'https://example.test/privacy', authorizationServers: [] },
    trustedProxyHops: 0,
    logger: createLogger('gateway', 'info', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    }),
    metrics: createMetrics('gateway'),
    ready: async () => ({ core: true }),
  });
  const handle = app.callback();
  server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function call(path: string, init: { method?: string; key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe('answer headers and request ids', () => {
  it('every /api/v1 answer, success or error, is nosniff and no-store with a request id that its log lines carry', async () => {
    const answers = {
      ok: await call('/api/v1/me', { key: 'good' }),
      unauthenticated: await call('/api/v1/me'),
      notFound: await call('/api/v1/nothing-here', { key: 'good' }),
      wrongMethod: await call('/api/v1/projects', { method: 'PUT', key: 'good' }),
      invalid: await call('/api/v1/projects', { method: 'POST', key: 'good', body: { name: 'v' } }),
      unhandled: await call('/api/v1/me', { key: 'boom' }),
      backendDown: await call('/api/v1/projects', { key: 'good' }),
      openapi: await call('/api/v1/openapi.json'),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([k, a]) => [k, a.status]))).toEqual({
      ok: 200,
      unauthenticated: 401,
      notFound: 404,
      wrongMethod: 405,
      invalid: 400,
      unhandled: 500,
      backendDown: 503,
      openapi: 200,
    });
    for (const [kind, { headers }] of Object.entries(answers)) {
      expect(headers.get('x-content-type-options'), kind).toBe('nosniff');
      expect(headers.get('cache-control'), kind).toBe('no-store');
      const requestId = headers.get('x-request-id') ?? '';
      expect(requestId, kind).toMatch(/^[0-9a-f-]{36}$/);
      expect(
        lines.filter((l) => l.msg === 'request' && l.requestId === requestId),
        kind,
      ).toHaveLength(1);
    }
    // renderError's own lines carry the request id of the answer.
    const idOf = (kind: keyof typeof answers) => answers[kind].headers.get('x-request-id');
    expect(lines.find((l) => l.msg === 'unhandled error')).toMatchObject({ level: 'error', requestId: idOf('unhandled') });
    expect(lines.find((l) => l.msg === 'backend unavailable')).toMatchObject({ level: 'warn', requestId: idOf('backendDown') });
    expect((JSON.parse(answers.unhandled.body) as { details: { requestId: string } }).details.requestId).toBe(idOf('unhandled'));
    // A resource is the backend's JSON bytes, written as they are, declared as JSON.
    expect(answers.ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answers.ok.body).toBe('{"id":"k1"}');
  });

  it('operational answers are nosniff with a request id, and may be cached', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/']) {
      const { headers } = await call(path);
      expect(headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(headers.get('cache-control'), path).toBeNull();
      expect(headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
