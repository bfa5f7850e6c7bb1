import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerCheck } from './support/answer-schemas.ts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// Issue 36, item 3: the end-to-end client holds every 2xx answer to its operation's response schema.
describe('answers held to their schemas (the check itself)', () => {
  const check = createAnswerCheck();
  const json = 'application/json; charset=utf-8';
  const id = '0b8a4a52-6c39-4c1e-9a43-6f0c1d1c2b3a';

  it('rejects a wrong answer, naming method, path and the problems', () => {
    const answer = { method: 'GET', url: `/api/v1/projects/${id}?x=1`, status: 200, contentType: json, body: { id: 42 } };
    expect(() => check(answer)).toThrow(/GET \/api\/v1\/projects\/[0-9a-f-]+ \(route GET \/api\/v1\/projects\/:id\)/);
    expect(() => check(answer)).toThrow(/\/id must be string/);
    expect(() => check(answer)).toThrow(/\/name is required/);
  });

  it('rejects a list whose items are not the resource', () => {
    const body = { data: [{ nope: true }], nextCursor: null };
    expect(() => check({ method: 'GET', url: '/api/v1/projects', status: 200, contentType: json, body })).toThrow(
      /GET \/api\/v1\/projects .*\/data\/0/,
    );
  });

  it('rejects a 2xx other than the declared status, and a JSON body where none is declared', () => {
    expect(() =>
      check({ method: 'DELETE', url: `/api/v1/projects/${id}`, status: 200, contentType: null, body: undefined }),
    ).toThrow(/answered 200, but the route declares 204/);
    expect(() =>
      check({ method: 'DELETE', url: `/api/v1/projects/${id}`, status: 204, contentType: json, body: { id } }),
    ).toThrow(/declares no response schema/);
    expect(() =>
      check({ method: 'GET', url: `/api/v1/projects/${id}`, status: 200, contentType: 'text/plain', body: 'hi' }),
    ).toThrow(/not the JSON/);
  });

  it('leaves errors and paths outside the route table alone', () => {
    expect(() =>
      check({ method: 'GET', url: `/api/v1/projects/${id}`, status: 404, contentType: json, body: { x: 1 } }),
    ).not.toThrow();
    expect(() => check({ method: 'GET', url: '/api/v1/openapi.json', status: 200, contentType: json, body: {} })).not.toThrow();
    expect(() => check({ method: 'GET', url: '/health', status: 200, contentType: json, body: {} })).not.toThrow();
  });
});

describe('answers held to their schemas (real answers)', () => {
  let c: TestCluster;
  let org: SeededOrg;
  beforeAll(async () => {
    c = await startTestCluster({ withoutDelivery: true });
    org = await c.seedOrg('Answers Org'); // POST /projects, checked by the client
  });
  afterAll(async () => c?.stop());

  it('passes the answers of the cluster (the client checks each one)', async () => {
    const check = createAnswerCheck();
    const got = await c.api(org.key, 'GET', `/projects/${org.projectId}`);
    expect(got.status).toBe(200);
    // The same answer, checked directly too: no throw.
    check({
      method: 'GET',
      url: `${c.baseUrl}/projects/${org.projectId}`,
      status: got.status,
      contentType: got.headers.get('content-type'),
      body: got.body,
    });
    expect((await c.api(org.key, 'GET', '/projects?pageSize=5')).status).toBe(200);
    expect((await c.api(org.key, 'PATCH', `/projects/${org.projectId}`, { description: 'checked' })).status).toBe(200);
    expect((await c.api(org.key, 'GET', '/me')).status).toBe(200);
    // And the same answer altered is refused.
    const wrong = { ...(got.body as object), name: 7 };
    expect(() =>
      check({
        method: 'GET',
        url: `${c.baseUrl}/projects/${org.projectId}`,
        status: 200,
        contentType: 'application/json',
        body: wrong,
      }),
    ).toThrow(/\/name must be string/);
  });
});
