import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { claimsOf, fromConnectError, type ActorClaims } from '@cluster/platform';
import { AuthService, EntryService, WebhookService } from '@cluster/proto';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { jsonOf, transportAs } from './support/service-calls.ts';

/**
 * A backend checks the body of a gateway call against the route's schema itself (issue 30; OPERATION_RULES
 * of @cluster/contracts, docs/security.md): a call that reaches it directly, with a valid gateway token
 * and a body the gateway would refuse, is answered invalid_argument with the gateway's problems, never
 * handed to a handler that trusts it (which answered 500), and writes nothing.
 */

let c: TestCluster;
let a: SeededOrg;
/** A's actor, as the core resolves A's key: what a gateway token for A's request carries. */
let actorA: ActorClaims;

const core = () => `http://127.0.0.1:${c.ports.core}`;
const delivery = () => `http://127.0.0.1:${c.ports.delivery}`;

/** How a call ended: `ok`, or its Connect code with the reason and problems of its ErrorInfo. */
async function outcome(call: Promise<unknown>) {
  try {
    await call;
    return { code: 'ok' };
  } catch (err) {
    const domain = fromConnectError(err);
    return { code: Code[ConnectError.from(err).code], reason: domain?.reason, errors: domain?.details?.errors };
  }
}

beforeAll(async () => {
  c = await startTestCluster();
  a = await c.seedOrg('A');
  const auth = createClient(AuthService, transportAs('gateway', 'core', core()));
  actorA = claimsOf((await auth.authenticate({ key: a.key, requestId: 'r' })).actor!);
}, 120_000);

afterAll(async () => {
  await c?.stop();
});

describe('a direct call with a schema-invalid body', () => {
  it("core's CreateEntry: invalid_argument with the problems the gateway answers, and no entry", async () => {
    const entries = createClient(EntryService, transportAs('gateway', 'core', core()));
    const body = { type: 'bug_report', title: { not: 'a string' }, description: ['nor', 'this'], priority: 'urgent' };
    const direct = await outcome(entries.createEntry({ actor: { ...actorA, requestId: 'r' }, parentId: a.projectId, body }));
    const viaGateway = await c.api(a.key, 'POST', `/projects/${a.projectId}/entries`, body);
    expect(viaGateway.status).toBe(400);
    expect(direct).toEqual({ code: 'InvalidArgument', reason: 'validation_error', errors: viaGateway.body.details.errors });
    expect(direct.errors).toEqual(
      expect.arrayContaining([
        { path: '/title', message: 'must be string' },
        { path: '/description', message: expect.any(String) as string },
        { path: '/priority', message: 'must be one of: low, medium, high, critical' },
      ]),
    );
    // No body at all: the empty object, whose required fields are missing.
    expect(await outcome(entries.createEntry({ actor: { ...actorA, requestId: 'r' }, parentId: a.projectId }))).toMatchObject({
      code: 'InvalidArgument',
      reason: 'validation_error',
    });
    expect((await c.api(a.key, 'GET', `/projects/${a.projectId}/entries`)).body.data).toEqual([]);

    // A valid body still passes, directly as through the gateway.
    const valid = { type: 'bug_report', title: 'Direct', description: 'made without the gateway' };
    const made = await entries.createEntry({ actor: { ...actorA, requestId: 'r' }, parentId: a.projectId, body: valid });
    expect(jsonOf(made.resource).title).toBe('Direct');
  });

  it("delivery's CreateWebhook: invalid_argument with the problems the gateway answers, and no webhook", async () => {
    const webhooks = createClient(WebhookService, transportAs('gateway', 'delivery', delivery()));
    const body = { destinationUrl: 42, eventNames: 'entry.created', enabled: 'yes' };
    const direct = await outcome(webhooks.createWebhook({ actor: { ...actorA, requestId: 'r' }, body }));
    const viaGateway = await c.api(a.key, 'POST', '/webhooks', body);
    expect(viaGateway.status).toBe(400);
    expect(direct).toEqual({ code: 'InvalidArgument', reason: 'validation_error', errors: viaGateway.body.details.errors });
    expect(direct.errors).toEqual(expect.arrayContaining([{ path: '/eventNames', message: 'must be array' }]));
    expect((await c.api(a.key, 'GET', '/webhooks')).body.data).toEqual([]);
  });

  it('a list query of a filter out of its schema: invalid_argument, never a query the handler trusts', async () => {
    const entries = createClient(EntryService, transportAs('gateway', 'core', core()));
    const query = { releaseId: 'not-a-uuid', status: 7 };
    expect(
      await outcome(
        entries.listEntries({ actor: { ...actorA, requestId: 'r' }, parentId: a.projectId, query, page: 1, pageSize: 25 }),
      ),
    ).toMatchObject({
      code: 'InvalidArgument',
      reason: 'validation_error',
      errors: expect.arrayContaining([{ path: 'releaseId', message: 'must match format "uuid"' }]) as unknown,
    });
  });
});
