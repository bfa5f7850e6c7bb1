import { describe, expect, it } from 'vitest';
import { create, type DescService } from '@bufbuild/protobuf';
import { EntryCreate, OPERATIONS, type Operation } from '@cluster/contracts';
import { ActorSchema } from '@cluster/proto';
import { HANDLERS, handlerKey } from './handlers.ts';
import { handler, toRoute, type RouteDef, type RouteResult } from './http/route.ts';
import { routes } from './routes.ts';
import type { ServiceClients } from './clients.ts';

const actor = create(ActorSchema, { apiKeyId: 'k1' });
const routeOf = (method: string, path: string): RouteDef => {
  const found = routes.find((r) => r.method === method && r.path === path);
  if (!found) throw new Error(`no route ${method} ${path}`);
  return found;
};
const operationOf = (method: string, path: string): Operation =>
  OPERATIONS.find((o) => o.method === method && o.path === path) ?? routeOf(method, path);

/**
 * Runs a route with clients whose every method records its request and answers `answer`: what the
 * route sent its RPC, and what it answered.
 */
async function runWith(
  route: RouteDef,
  input: { params?: Record<string, string>; json?: unknown; query?: Record<string, unknown> },
  answer: object = { resource: Buffer.from('{"id":"r1"}'), created: false },
): Promise<{ sent: { method: string; request: Record<string, unknown> }[]; result: RouteResult }> {
  const sent: { method: string; request: Record<string, unknown> }[] = [];
  const clients: ServiceClients = {
    of: <S extends DescService>(service: S) =>
      new Proxy(
        {},
        {
          get: (_, method: string) => async (request: Record<string, unknown>) => {
            sent.push({ method: `${service.typeName}/${method}`, request });
            return answer;
          },
        },
      ) as never,
  };
  const result = await route.run({ actor, params: input.params ?? {}, json: input.json, query: input.query ?? {}, clients });
  return { sent, result };
}

describe('the routes of the operation table', () => {
  it('are the table, in its order, each with its backend from the RPC’s package', () => {
    expect(routes.map(handlerKey)).toEqual(OPERATIONS.map(handlerKey));
    expect(routeOf('POST', '/projects/:id/entries').backend).toBe('core');
    expect(routeOf('GET', '/webhooks').backend).toBe('delivery');
    expect(routeOf('GET', '/releases/:id/evidence').backend).toBe('evidence');
    expect(routeOf('GET', '/webhooks/event-types').backend).toBe('gateway');
  });

  it('have a handler written only where an operation does something of its own', () => {
    // The latest: the listening CLI's stream (GET /webhooks/listen), which no derived handler answers.
    expect(Object.keys(HANDLERS).length).toBeLessThanOrEqual(7);
    for (const key of Object.keys(HANDLERS))
      expect(
        OPERATIONS.some((o) => handlerKey(o) === key),
        key,
      ).toBe(true);
  });
});

describe('the handler derived from an operation’s shape', () => {
  it('a list: the page, the page size, the filters and the parent from the path', async () => {
    const page = { data: Buffer.from('[{"id":"e1"}]'), page: 2, pageSize: 5, total: 6 };
    const { sent, result } = await runWith(
      routeOf('GET', '/projects/:id/entries'),
      { params: { id: 'p1' }, query: { page: '2', pageSize: '5', status: 'open' } },
      page,
    );
    expect(sent).toEqual([
      {
        method: 'cluster.core.v1.EntryService/listEntries',
        request: { actor, parentId: 'p1', page: 2, pageSize: 5, query: { status: 'open' } },
      },
    ]);
    expect(JSON.parse(Buffer.from(result.body!).toString())).toEqual({ data: [{ id: 'e1' }], page: 2, pageSize: 5, total: 6 });
  });

  it('a create under a parent: the parent from the path, the body as a Struct, 201', async () => {
    const { sent, result } = await runWith(routeOf('POST', '/projects/:id/entries'), {
      params: { id: 'p1' },
      json: { title: 'T', type: 'bug_report', description: 'd' },
    });
    expect(sent[0]?.request).toEqual({ actor, parentId: 'p1', body: { title: 'T', type: 'bug_report', description: 'd' } });
    expect(result.status).toBe(201);
  });

  it('an upsert: 201 when the RPC created the record, 200 when one matched', async () => {
    const route = routeOf('POST', '/projects/:id/wiki-pages');
    const body = { title: 'W' };
    expect(
      (await runWith(route, { params: { id: 'p1' }, json: body }, { resource: Buffer.from('{}'), created: true })).result.status,
    ).toBe(201);
    expect(
      (await runWith(route, { params: { id: 'p1' }, json: body }, { resource: Buffer.from('{}'), created: false })).result.status,
    ).toBe(200);
  });

  it('a write on a member of a parent: the parent and the id from the path; a delete answers 204', async () => {
    const { sent, result } = await runWith(routeOf('DELETE', '/projects/:id/members/:memberId'), {
      params: { id: 'p1', memberId: 'm1' },
    });
    expect(sent[0]?.request).toEqual({ actor, parentId: 'p1', id: 'm1' });
    expect(result).toEqual({ status: 204 });
  });

  it('a read with a query: the id from the path, the query as a Struct', async () => {
    const { sent } = await runWith(routeOf('GET', '/projects/:id/time-summary'), {
      params: { id: 'p1' },
      query: { from: '2026-11-01' },
    });
    expect(sent[0]?.request).toEqual({ actor, id: 'p1', query: { from: '2026-11-01' } });
    const plain = await runWith(routeOf('GET', '/entries/:id'), { params: { id: 'e1' } });
    expect(plain.sent[0]?.request).toEqual({ actor, id: 'e1' });
  });

  it('a background job: 202 with the resource', async () => {
    const { result } = await runWith(routeOf('POST', '/webhooks/:id/recover'), {
      params: { id: 'w1' },
      json: { since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    expect(result.status).toBe(202);
  });

  it('is refused when the gateway starts for an operation of no common shape, or one the gateway answers itself', () => {
    expect(() => toRoute(operationOf('GET', '/webhooks/:id/deliveries/:deliveryId'))).toThrow(/takes one id, the path has 2/);
    expect(() => toRoute(operationOf('GET', '/releases/:id/evidence'))).toThrow(/GetReleaseEvidenceRequest is no common request/);
    expect(() => toRoute(operationOf('GET', '/webhooks/event-types'))).toThrow(/needs a handler of its own/);
  });
});

describe('a named handler', () => {
  it('is refused when it calls another RPC than its operation’s, or is typed by other schemas', () => {
    const createEntry = operationOf('POST', '/projects/:id/entries');
    const other = HANDLERS['GET /releases/:id/evidence'];
    expect(() => toRoute(createEntry, other)).toThrow(
      /its handler calls cluster.evidence.v1.EvidenceService\/GetReleaseEvidence/,
    );
    const typed = handler({ body: EntryCreate }, async () => ({ status: 204 }));
    expect(() =>
      toRoute({ ...createEntry, operation: undefined, body: operationOf('PATCH', '/entries/:id').body }, typed),
    ).toThrow(/typed by other schemas/);
  });
});
