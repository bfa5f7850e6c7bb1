import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT, HOOK_BODY_LIMIT } from '@cluster/gateway';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

let c: TestCluster;
let org: SeededOrg;
let projectKey: string;
let otherProjectId: string;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Gateway Org');
  const { id: devId } = await c.admin.createUser(org.orgId, 'dev@example.test', 'Dev', 'developer');
  await c.admin.addMember(org.projectId, devId);
  projectKey = (await c.admin.createKey({ user: devId, scope: 'project', project: org.projectId })).key;
  otherProjectId = (await c.api(org.key, 'POST', '/projects', { name: 'other', description: '' })).body.id;
});
afterAll(async () => c?.stop());

describe("project-scoped keys (the spec's scope table)", () => {
  it('may use /me', async () => {
    const res = await c.api(projectKey, 'GET', '/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scope: 'project', scopedProjectId: org.projectId });
  });

  it('GET /projects lists only its own project', async () => {
    const res = await c.api(projectKey, 'GET', '/projects?pageSize=100');
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([org.projectId]);
    expect(res.body.total).toBe(1);
  });

  it('POST /projects is 403 scope_violation', async () => {
    const res = await c.api(projectKey, 'POST', '/projects', { name: 'x', description: '' });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('scope_violation');
  });

  it('its own project is reachable, another project of its organization is 403 scope_violation', async () => {
    expect((await c.api(projectKey, 'GET', `/projects/${org.projectId}`)).status).toBe(200);
    for (const path of [`/projects/${otherProjectId}`, `/projects/${otherProjectId}/audit-events`]) {
      const res = await c.api(projectKey, 'GET', path);
      expect(res.status, path).toBe(403);
      expect(res.body.reason).toBe('scope_violation');
    }
  });

  it('GET /audit-events is filtered to its project', async () => {
    const res = await c.api(projectKey, 'GET', '/audit-events?pageSize=100');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((e: { entityId: string }) => e.entityId !== otherProjectId)).toBe(true);
  });

  it('a project key of another organization gets 404, never 403', async () => {
    const stranger = await c.seedOrg('Stranger Org');
    const res = await c.api(stranger.key, 'GET', `/projects/${otherProjectId}`);
    expect(res.status).toBe(404);
  });
});

describe('permissions', () => {
  it('an explicit permission array is refused what it lacks, and the 403 names it', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: 'read:project' });
    expect((await c.api(key, 'GET', '/projects')).status).toBe(200);
    const res = await c.api(key, 'POST', '/projects', { name: 'x', description: '' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ reason: 'forbidden', message: 'missing permission write:project' });
    const audit = await c.api(key, 'GET', '/audit-events');
    expect(audit.body.message).toBe('missing permission read:audit');
    const me = await c.api(key, 'GET', '/me');
    expect(me.body.permissions).toEqual(['read:project']);
  });

  it("a role's default set applies when permissions is null (client cannot read audit events)", async () => {
    const { id } = await c.admin.createUser(org.orgId, 'client@example.test', 'Client', 'client');
    // Clients cannot mint keys; an admin-created path is not possible, so check the minting rule itself.
    await expect(c.admin.createKey({ user: id, scope: 'project', project: org.projectId })).rejects.toThrow(/cannot mint/);
    const res = await c.api(projectKey, 'PATCH', `/projects/${org.projectId}`, { name: 'renamed' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('missing permission write:project');
  });

  it("minting refuses permissions beyond the creator's role and org keys for non-admins", async () => {
    const { id } = await c.admin.createUser(org.orgId, 'dev2@example.test', 'Dev2', 'developer');
    await c.admin.addMember(org.projectId, id);
    await expect(c.admin.createKey({ user: id, scope: 'organization' })).rejects.toThrow(/organization-scoped/);
    await expect(c.admin.createKey({ user: id, scope: 'project', project: otherProjectId })).rejects.toThrow(/not a member/);
    await expect(
      c.admin.createKey({ user: id, scope: 'project', project: org.projectId, permissions: 'write:project' }),
    ).rejects.toThrow(/cannot grant/);
  });
});

describe('HTTP behaviour', () => {
  it('unknown route 404, wrong method 405 with Allow', async () => {
    const missing = await c.api(org.key, 'GET', '/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe('not_found');
    const wrong = await c.api(org.key, 'PUT', '/projects');
    expect(wrong.status).toBe(405);
    expect(wrong.body.reason).toBe('method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    // Neither adds a metrics series named after the raw path (one per id would grow without bound).
    await c.api(org.key, 'DELETE', `/projects/${org.projectId}/entries`);
    const metrics = await (await fetch(`http://127.0.0.1:${c.ports.gatewayMetrics}/metrics`)).text();
    const series = metrics
      .split('\n')
      .filter((l) => l.startsWith('gateway_http_requests_total{') && l.includes('method="DELETE"'));
    expect(series.some((l) => l.includes('route="unmatched"') && l.includes('status="405"'))).toBe(true);
    expect(metrics).not.toContain(org.projectId);
  });

  it('labels the other endpoints by their path template', async () => {
    await fetch(`${c.baseUrl.replace('/api/v1', '')}/hooks/github/${org.orgId}`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    await fetch(`${c.baseUrl.replace('/api/v1', '')}/mcp`, { method: 'GET' });
    const metrics = await (await fetch(`http://127.0.0.1:${c.ports.gatewayMetrics}/metrics`)).text();
    const routes = metrics
      .split('\n')
      .filter((l) => l.startsWith('gateway_http_requests_total{'))
      .map((l) => /route="([^"]*)"/.exec(l)?.[1]);
    expect(routes).toContain('/hooks/github/:organizationId');
    expect(routes).toContain('/mcp');
    expect(metrics).not.toContain(org.orgId);
  });

  it('counts a 404 or 405 with a key against its limit, with the headers; a bad key there is 401', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const missing = await c.api(key, 'GET', '/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-limit')).toBe('600');
    expect(missing.headers.get('x-ratelimit-remaining')).toBe('599');
    const wrong = await c.api(key, 'PUT', '/projects');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('x-ratelimit-remaining')).toBe('598');
    expect((await c.api(key, 'GET', '/me')).headers.get('x-ratelimit-remaining')).toBe('597');
    const bad = await c.api('fbk_not_a_key', 'GET', '/nothing-here');
    expect(bad.status).toBe(401);
    const none = await c.api(undefined, 'GET', '/nothing-here');
    expect(none.status).toBe(404);
    expect(none.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('a body over 1 MiB is 413 payload_too_large', async () => {
    const res = await c.api(org.key, 'POST', '/projects', { name: 'big', description: 'x'.repeat(1024 * 1024 + 10) });
    expect(res.status).toBe(413);
    expect(res.body.reason).toBe('payload_too_large');
  });

  // The proxy lets /hooks bodies up to HOOK_BODY_LIMIT through (k8s/components/gateway-api; test/k8s-manifests.test.ts).
  it(`a code-host hook takes a body past the API's cap, up to HOOK_BODY_LIMIT (${HOOK_BODY_LIMIT} bytes); one byte more is 413`, async () => {
    const url = `${c.baseUrl.replace('/api/v1', '')}/hooks/github/${org.orgId}`;
    const headers = {
      'content-type': 'application/json',
      'x-github-event': 'ping',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
    };
    // Read whole and passed on; refused for its signature (no secret signed it), not its size.
    const past = await fetch(url, { method: 'POST', headers, body: Buffer.alloc(3 * BODY_LIMIT, 0x20) });
    expect(past.status).not.toBe(413);
    expect(past.status).toBeLessThan(500);
    const over = await fetch(url, { method: 'POST', headers, body: Buffer.alloc(HOOK_BODY_LIMIT + 1, 0x20) });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { reason: string }).reason).toBe('payload_too_large');
  });

  it('every answer carries a request id; a sane given one is echoed', async () => {
    const res = await c.api(org.key, 'GET', '/me', undefined, { 'x-request-id': 'trace-abc-123' });
    expect(res.headers.get('x-request-id')).toBe('trace-abc-123');
    const anon = await c.api(undefined, 'GET', '/me');
    expect(anon.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers are nosniff, and /api/v1 answers no-store: a 200, a 401, a 404 and a validation error', async () => {
    const answers = [
      await c.api(org.key, 'GET', '/me'),
      await c.api(undefined, 'GET', '/me'),
      await c.api(org.key, 'GET', '/nothing-here'),
      await c.api(org.key, 'POST', '/projects', { name: 'v' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 400]);
    for (const { status, headers } of answers) {
      expect(headers.get('x-content-type-options'), String(status)).toBe('nosniff');
      expect(headers.get('cache-control'), String(status)).toBe('no-store');
      expect(headers.get('x-request-id'), String(status)).toBeTruthy();
    }
    const health = await fetch(`${c.baseUrl.replace('/api/v1', '')}/healthz`);
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves the OpenAPI 3.1 document generated from the route table', async () => {
    const res = await fetch(`${c.baseUrl}/openapi.json`);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    const body = (path: string, method: string) => {
      const ref: string = doc.paths[path][method].requestBody.content['application/json'].schema.$ref;
      return doc.components.schemas[ref.replace('#/components/schemas/', '')];
    };
    expect(body('/api/v1/projects', 'post').required).toEqual(['name', 'description']);
    expect(body('/api/v1/projects/{id}', 'patch').additionalProperties).toBe(false);
  });

  it('exposes health, readiness and metrics', async () => {
    const base = c.baseUrl.replace('/api/v1', '');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // Readiness is local: the gateway's own (docs/runbook.md); the backends' is theirs.
    const ready = await (await fetch(`${base}/readyz`)).json();
    expect(ready).toEqual({ ready: true, checks: { accepting: true } });
    // Prometheus' own port; the public API port does not answer /metrics.
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    const metrics = await (await fetch(`http://127.0.0.1:${c.ports.gatewayMetrics}/metrics`)).text();
    expect(metrics).toContain('gateway_http_requests_total');
    expect(metrics).toContain('gateway_http_request_duration_seconds_bucket');
    expect(metrics).toContain('process_cpu_seconds_total{service="gateway"}');
    const core = await (await fetch(`http://127.0.0.1:${c.ports.core}/metrics`)).text();
    expect(core).toContain('core_outbox_backlog');
    expect(core).toContain('core_rpc_requests_total');
  });
});

describe('rate limit', () => {
  it('the 601st request within a minute is 429 with the headers; another key is unaffected', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    let last = await c.api(key, 'GET', '/me');
    expect(last.headers.get('x-ratelimit-limit')).toBe('600');
    expect(last.headers.get('x-ratelimit-remaining')).toBe('599');
    for (let i = 0; i < 599; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, 599 - i) }, () => c.api(key, 'GET', '/me')));
    }
    last = await c.api(key, 'GET', '/me');
    expect(last.status).toBe(429);
    expect(last.body.reason).toBe('rate_limit');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(last.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    const fresh = await c.api(org.key, 'GET', '/me');
    expect(fresh.status).toBe(200);
  });
});
