import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { create, type JsonObject } from '@bufbuild/protobuf';
import { EntryCreate, EntryFilters, ListQuery } from '@cluster/contracts';
import { EntryService, WriteRequestSchema } from '@cluster/proto';
import { fromConnectError } from './errors.ts';
import { jsonBytes } from './handler-kit.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import type { OperationRule } from './operation-rules.ts';
import { createRpcTransport } from './rpc.ts';
import { createServiceServer } from './server.ts';
import { createTokenSigner, createTokenVerifier, devServiceKeys, requestDigest, type ActorClaims } from './service-auth.ts';

// A backend's server as the services run it, given the rules of three operations: one with a body schema,
// one with a query schema, one with none. Its handlers count the calls that reach them.
const RULES: Record<string, OperationRule> = {
  'cluster.core.v1.EntryService/CreateEntry': { permission: 'write:entry', body: EntryCreate },
  'cluster.core.v1.EntryService/ListEntries': { permission: 'read:entry', query: ListQuery(EntryFilters) },
  'cluster.core.v1.EntryService/UpdateEntry': { permission: 'write:entry' },
};
const ACTOR: ActorClaims = {
  apiKeyId: 'k1',
  organizationId: 'org-a',
  userId: 'u1',
  role: 'admin',
  scope: 'organization',
  permissions: ['read:entry', 'write:entry'],
};
const PROJECT = '00000000-0000-4000-8000-000000000001';

const reached: string[] = [];
const server = createServiceServer({
  service: 'test',
  trust: { verify: createTokenVerifier(devServiceKeys('core')), policyOf: () => ({ callers: ['gateway'] }), rules: RULES },
  logger: createLogger('test', 'silent'),
  metrics: createMetrics('test'),
  ready: async () => ({ ready: true, checks: {} }),
  routes: (r) =>
    r.service(EntryService, {
      createEntry: () => {
        reached.push('createEntry');
        return { resource: jsonBytes({}), created: true };
      },
      updateEntry: () => {
        reached.push('updateEntry');
        return { resource: jsonBytes({}) };
      },
      listEntries: () => {
        reached.push('listEntries');
        return { data: jsonBytes([]), page: 1, pageSize: 25, total: 0 };
      },
    }),
});
const sign = createTokenSigner(devServiceKeys('gateway'));
let baseUrl = '';
let entries: ReturnType<typeof createClient<typeof EntryService>>;
beforeAll(async () => {
  baseUrl = `http://127.0.0.1:${await server.listen(0, '127.0.0.1')}`;
  entries = createClient(EntryService, createRpcTransport(baseUrl, { sign, audience: 'core' }));
});
afterAll(() => server.close());

/** What a call is refused with: its Connect code, and the reason and details of its ErrorInfo. */
async function refusal(call: Promise<unknown>): Promise<{ code: Code; reason?: string; details?: JsonObject }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ConnectError)) throw new Error(`expected a refusal, got ${String(err)}`);
  const domain = fromConnectError(err);
  return { code: err.code, reason: domain?.reason, details: domain?.details };
}

describe('a backend checking the input of a gateway call against its operation’s rule', () => {
  it('refuses a body its schema refuses: invalid_argument, validation_error with every problem, the handler not run', async () => {
    reached.length = 0;
    const body = { type: 'nope', title: 'T', extra: 1 };
    expect(await refusal(entries.createEntry({ actor: ACTOR, parentId: PROJECT, body }))).toEqual({
      code: Code.InvalidArgument,
      reason: 'validation_error',
      details: {
        errors: [
          { path: '/description', message: 'is required' },
          { path: '/extra', message: 'is not a known property' },
          { path: '/type', message: expect.stringMatching(/^must be one of: feature_request, bug_report/) as string },
        ],
      },
    });
    // No body at all is the empty object, as handlers read it.
    const none = await refusal(entries.createEntry({ actor: ACTOR, parentId: PROJECT }));
    expect(none.details?.errors).toEqual(['/type', '/title', '/description'].map((path) => ({ path, message: 'is required' })));
    expect(reached).toEqual([]);
  });

  it('answers it 400 in Connect’s JSON protocol too (the path connect-node serves)', async () => {
    const sent = { parentId: PROJECT, body: { title: 5 } };
    const message = create(WriteRequestSchema, sent);
    const digest = requestDigest({ method: EntryService.method.createEntry, message, header: new Headers() });
    const res = await fetch(`${baseUrl}/${EntryService.typeName}/CreateEntry`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await sign('core', ACTOR, `${EntryService.typeName}/CreateEntry`, digest)}`,
      },
      body: JSON.stringify(sent),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_argument');
    expect(reached).toEqual([]);
  });

  it('refuses a query its schema refuses, naming each parameter as the gateway does', async () => {
    const query = { releaseId: 'not-a-uuid', status: 'open' };
    expect(await refusal(entries.listEntries({ actor: ACTOR, parentId: PROJECT, query }))).toMatchObject({
      code: Code.InvalidArgument,
      reason: 'validation_error',
      details: { errors: [{ path: 'releaseId', message: 'must match format "uuid"' }] },
    });
    expect(reached).toEqual([]);
  });

  it('authorizes first: a key without the permission is refused 403 whatever its body', async () => {
    const reader = { ...ACTOR, permissions: ['read:entry'] };
    expect(await refusal(entries.createEntry({ actor: reader, parentId: PROJECT, body: { type: 'nope' } }))).toMatchObject({
      code: Code.PermissionDenied,
      reason: 'forbidden',
    });
  });

  it('passes a valid body or query, and any input of an operation without a schema, to the handler', async () => {
    reached.length = 0;
    const body = { type: 'bug_report', title: 'T', description: 'D' };
    await entries.createEntry({ actor: ACTOR, parentId: PROJECT, body });
    await entries.listEntries({ actor: ACTOR, parentId: PROJECT, query: { status: 'open', releaseId: PROJECT } });
    await entries.listEntries({ actor: ACTOR, parentId: PROJECT });
    await entries.updateEntry({ actor: ACTOR, id: PROJECT, body: { anything: ['goes', 1] } });
    expect(reached).toEqual(['createEntry', 'listEntries', 'listEntries', 'updateEntry']);
  });
});
