import { randomBytes, randomUUID } from 'node:crypto';
import { DEFAULT_PERMISSIONS } from '@cluster/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import {
  claimsOf,
  createTokenSigner,
  devServiceKeys,
  OPERATION_RULES,
  RPC_METHODS,
  requestDigest,
  servedRpcs,
  signingKeyFromSeed,
  type ActorClaims,
  type ServiceName,
  type TokenSigner,
} from '@cluster/platform';
import { AuditService, AuthService, ProjectService, WebhookService, type Actor } from '@cluster/proto';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { jsonOf, transportAs } from './support/service-calls.ts';

/**
 * No trust inside the cluster (issue 18, item 1; docs/security.md): a call to a backend
 * that reaches its port directly, bypassing the gateway, must prove its caller with a
 * service token, and acts only as the actor that token carries and the core confirms.
 */

let c: TestCluster;
let a: SeededOrg;
let b: SeededOrg;
/** A's actor, as the core resolves A's key. */
let actorA: Actor;

const core = () => `http://127.0.0.1:${c.ports.core}`;
const delivery = () => `http://127.0.0.1:${c.ports.delivery}`;

/**
 * The method of the call being made and its digest (requestDigest): withToken sets them for
 * signerOf's signers, which sign for them unless told another.
 */
let calling = '';
let callingDigest = '';

/** A transport that sends exactly `token` (or none) as the service token. */
function withToken(baseUrl: string, token: () => Promise<string | undefined>) {
  const attach: Interceptor = (next) => async (req) => {
    calling = `${req.service.typeName}/${req.method.name}`;
    callingDigest = req.stream ? '' : requestDigest(req);
    const t = await token();
    if (t) req.header.set('authorization', `Bearer ${t}`);
    return next(req);
  };
  return createGrpcTransport({ baseUrl, interceptors: [attach] });
}

/** A signer of `as`'s tokens with the development key of `keyOf` (or a stranger's key) and a clock. */
function signerOf(as: ServiceName, keyOf: ServiceName | 'stranger', clock: () => number = Date.now): TokenSigner {
  const signingKey = keyOf === 'stranger' ? signingKeyFromSeed(randomBytes(32)) : devServiceKeys(keyOf).signingKey;
  const sign = createTokenSigner({ ...devServiceKeys(as), signingKey }, clock);
  return (audience, actor, method, digest) => sign(audience, actor, method ?? calling, digest ?? callingDigest);
}

/** An actor of organization B as an attacker would make it up: admin of everything. */
function forgedActorOfB(): ActorClaims {
  return {
    apiKeyId: randomUUID(),
    organizationId: b.orgId,
    userId: b.adminId,
    role: 'admin',
    scope: 'organization',
    permissions: ['read:project', 'write:project', 'delete:project'],
  };
}

/** The Connect code a call fails with. */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    return Code[ConnectError.from(err).code];
  }
}

/** Renames B's project through core's ProjectService over `transport`, with B's forged actor in the message. */
function renameBsProject(transport: ReturnType<typeof createGrpcTransport>) {
  return createClient(ProjectService, transport).updateProject({
    actor: { ...forgedActorOfB(), requestId: 'attack' },
    id: b.projectId,
    body: { name: 'owned' },
  });
}

beforeAll(async () => {
  c = await startTestCluster();
  a = await c.seedOrg('A');
  b = await c.seedOrg('B');
  const auth = createClient(AuthService, transportAs('gateway', 'core', core()));
  actorA = (await auth.authenticate({ key: a.key, requestId: 'r' })).actor!;
}, 120_000);

afterAll(async () => {
  await c?.stop();
});

describe('calls into the core without the gateway', () => {
  it('are refused without a token, with a token signed by an unknown key, and with an expired token', async () => {
    expect(await codeOf(renameBsProject(withToken(core(), async () => undefined)))).toBe('Unauthenticated');
    const stranger = signerOf('gateway', 'stranger');
    expect(await codeOf(renameBsProject(withToken(core(), () => stranger('core', forgedActorOfB()))))).toBe('Unauthenticated');
    // Signed by the real gateway key, but a minute ago: 30 s of validity and 5 s of tolerance are over.
    const late = signerOf('gateway', 'gateway', () => Date.now() - 60_000);
    expect(await codeOf(renameBsProject(withToken(core(), () => late('core', forgedActorOfB()))))).toBe('Unauthenticated');
    // The token of another audience does not open the core either.
    const gateway = signerOf('gateway', 'gateway');
    expect(await codeOf(renameBsProject(withToken(core(), () => gateway('delivery', forgedActorOfB()))))).toBe('Unauthenticated');
    expect((await c.api(b.key, 'GET', `/projects/${b.projectId}`)).body.name).toBe('B project');
  });

  it("act as the token's actor, never the message's: A's token cannot reach B, and a made-up actor is no key", async () => {
    const gateway = signerOf('gateway', 'gateway');
    // A's real actor in the token, B's forged one in the message: the core acts as A, and B's project is not A's.
    expect(await codeOf(renameBsProject(withToken(core(), () => gateway('core', claimsOf(actorA)))))).toBe('NotFound');
    // A gateway-signed token whose actor is made up: the core finds no such key.
    expect(await codeOf(renameBsProject(withToken(core(), () => gateway('core', forgedActorOfB()))))).toBe('Unauthenticated');
    // A token signed for another method (here GetProject) does not open UpdateProject.
    const getProject = `${ProjectService.typeName}/GetProject`;
    expect(await codeOf(renameBsProject(withToken(core(), () => gateway('core', claimsOf(actorA), getProject))))).toBe(
      'Unauthenticated',
    );
    // A token without an actor cannot call an operation that acts for a key.
    expect(await codeOf(renameBsProject(withToken(core(), () => gateway('core'))))).toBe('Unauthenticated');
    expect((await c.api(b.key, 'GET', `/projects/${b.projectId}`)).body.name).toBe('B project');
  });

  it('take the actor from the token for every read too: A lists only its own projects whatever the message says', async () => {
    const gateway = signerOf('gateway', 'gateway');
    const projects = createClient(
      ProjectService,
      withToken(core(), () => gateway('core', claimsOf(actorA))),
    );
    const res = await projects.listProjects({ actor: { ...forgedActorOfB(), requestId: 'attack' } });
    const ids = jsonOf(res.data).map((p: { id: string }) => p.id);
    expect(ids).toContain(a.projectId);
    expect(ids).not.toContain(b.projectId);
  });

  it('are allowed only from the services each method names: delivery cannot write projects, the gateway cannot forge audit rows', async () => {
    const deliveryToken = signerOf('delivery', 'delivery');
    expect(await codeOf(renameBsProject(withToken(core(), () => deliveryToken('core', claimsOf(actorA)))))).toBe(
      'PermissionDenied',
    );
    const audit = createClient(AuditService, transportAs('gateway', 'core', core()));
    const record = audit.recordAuditEvent({
      id: randomUUID(),
      occurredAt: new Date().toISOString(),
      actor: { ...forgedActorOfB(), requestId: 'attack' },
      entityType: 'project',
      action: 'deleted',
      entityId: b.projectId,
      metadata: {},
    });
    expect(await codeOf(record)).toBe('PermissionDenied');
    const events = await c.api(b.key, 'GET', `/audit-events?entityId=${b.projectId}&action=deleted`);
    expect(events.body.data).toEqual([]);
  });
});

describe('tokens bound to the request (issue 37 item 6)', () => {
  it('open the one request they were signed for: a captured DeleteProject token deletes no other project, an UpdateProject token sets no other body', async () => {
    const [first, second] = await Promise.all(
      ['first', 'second'].map(async (name) => {
        const res = await c.api(a.key, 'POST', '/projects', { name, description: 'bound tokens' });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as string;
      }),
    );
    // The token the gateway would sign for deleting the first project, as someone on the path captures it.
    const gateway = signerOf('gateway', 'gateway');
    let captured = '';
    const deleting = createClient(
      ProjectService,
      withToken(core(), async () => (captured = await gateway('core', claimsOf(actorA)))),
    );
    const replaying = createClient(
      ProjectService,
      withToken(core(), async () => captured),
    );
    await deleting.deleteProject({ id: first });
    // Within its 30 s, for the same method and actor: refused for another project, and for another body.
    expect(await codeOf(replaying.deleteProject({ id: second }))).toBe('Unauthenticated');
    expect((await c.api(a.key, 'GET', `/projects/${second}`)).status).toBe(200);
    await deleting.updateProject({ id: second, body: { name: 'renamed' } });
    expect(await codeOf(replaying.updateProject({ id: second, body: { name: 'owned', status: 'archived' } }))).toBe(
      'Unauthenticated',
    );
    expect((await c.api(a.key, 'GET', `/projects/${second}`)).body).toMatchObject({ name: 'renamed', status: 'active' });
    // The request it was signed for, repeated as it was, is the one thing it opens.
    expect(await codeOf(replaying.updateProject({ id: second, body: { name: 'renamed' } }))).toBe('ok');
  });
});

describe('audit records a service forwards (RecordAuditEvent, issue 37 item 3)', () => {
  /** A delivery token for RecordAuditEvent carrying A's actor, as delivery's forwarder sends for A's webhook write. */
  const audit = () => {
    const delivery = signerOf('delivery', 'delivery');
    return createClient(
      AuditService,
      withToken(core(), () => delivery('core', claimsOf(actorA))),
    );
  };
  const record = (over: {
    entityId?: string;
    entityType?: string;
    action?: string;
    occurredAt?: string;
    metadata?: Record<string, string>;
    actor?: ActorClaims & { requestId: string };
  }) => ({
    id: randomUUID(),
    actor: { ...claimsOf(actorA), requestId: 'r' },
    entityType: 'webhook_subscription',
    action: 'created',
    entityId: randomUUID(),
    metadata: {},
    ...over,
  });
  /** The organization's audit events of `entityId` (the list has no entityId filter: the trail is small here). */
  const trailOf = async (org: SeededOrg, entityId: string) =>
    (
      (await c.api(org.key, 'GET', '/audit-events?pageSize=100')).body.data as {
        entityId: string;
        metadata: Record<string, unknown>;
      }[]
    ).filter((e) => e.entityId === entityId);

  it('are written for the token actor’s organization only: a delivery token of A cannot write into B’s trail', async () => {
    const entityId = randomUUID();
    const intoB = record({ entityId, actor: { ...forgedActorOfB(), requestId: 'attack' } });
    expect(await codeOf(audit().recordAuditEvent(intoB))).toBe('PermissionDenied');
    // Naming B's real admin and A's key does not help either.
    const mixed = record({
      entityId,
      actor: { ...claimsOf(actorA), organizationId: b.orgId, userId: b.adminId, requestId: 'attack' },
    });
    expect(await codeOf(audit().recordAuditEvent(mixed))).toBe('PermissionDenied');
    expect(await trailOf(b, entityId)).toEqual([]);
    expect(await trailOf(a, entityId)).toEqual([]);
  });

  it('hold only the entity types of the calling service’s own writes: no back-dated approval of an entry', async () => {
    const entityId = randomUUID();
    const approval = record({ entityId, entityType: 'entry', action: 'approved', occurredAt: '2020-01-01T00:00:00Z' });
    expect(await codeOf(audit().recordAuditEvent(approval))).toBe('PermissionDenied');
    expect(await trailOf(a, entityId)).toEqual([]);
  });

  it('name the service that recorded them, whatever the message’s metadata says', async () => {
    const entityId = randomUUID();
    await audit().recordAuditEvent(record({ entityId, metadata: { service: 'core', actorType: 'api_key' } }));
    const [row] = await trailOf(a, entityId);
    expect(row.metadata).toMatchObject({ service: 'delivery', apiKeyId: a.keyId });
  });
});

describe('calls into the delivery service without the gateway', () => {
  it('are refused without a token and from a service other than the gateway; with A’s token, B’s webhooks stay out of reach', async () => {
    const created = await c.api(b.key, 'POST', '/webhooks', {
      destinationUrl: 'https://example.com/hooks',
      eventNames: ['entry.created'],
    });
    expect(created.status).toBe(201);
    const rotate = (transport: ReturnType<typeof createGrpcTransport>) =>
      createClient(WebhookService, transport).rotateWebhookSecret({
        actor: { ...forgedActorOfB(), requestId: 'attack' },
        id: created.body.id,
      });
    expect(await codeOf(rotate(withToken(delivery(), async () => undefined)))).toBe('Unauthenticated');
    const core = signerOf('core', 'core');
    expect(await codeOf(rotate(withToken(delivery(), () => core('delivery', forgedActorOfB()))))).toBe('PermissionDenied');
    const gateway = signerOf('gateway', 'gateway');
    expect(await codeOf(rotate(withToken(delivery(), () => gateway('delivery', claimsOf(actorA)))))).toBe('NotFound');
  });
});

describe('the delivery service confirms a token’s actor with the core (issue 37 item 5)', () => {
  const webhooksAs = (actor: ActorClaims) => {
    const gateway = signerOf('gateway', 'gateway');
    return createClient(
      WebhookService,
      withToken(delivery(), () => gateway('delivery', actor)),
    );
  };
  /** A new organization key of A and the actor the core resolves it to. */
  async function freshKeyOfA() {
    const { id, key } = await c.admin.createKey({ user: a.adminId, scope: 'organization' });
    const auth = createClient(AuthService, transportAs('gateway', 'core', core()));
    return { id, actor: claimsOf((await auth.authenticate({ key, requestId: 'r' })).actor!) };
  }

  it('refuses a made-up actor of another organization: it names no key, so B’s webhooks are neither listed nor created', async () => {
    // Every permission an admin key has, so that only the key check can refuse it.
    const forged = { ...forgedActorOfB(), permissions: [...DEFAULT_PERMISSIONS.admin] };
    expect(await codeOf(webhooksAs(forged).listWebhooks({ actor: { ...forged, requestId: 'attack' } }))).toBe('Unauthenticated');
    const create = webhooksAs(forged).createWebhook({
      actor: { ...forged, requestId: 'attack' },
      body: { destinationUrl: 'https://example.com/smuggled', eventNames: ['entry.created'] },
    });
    expect(await codeOf(create)).toBe('Unauthenticated');
    const listed = await c.api(b.key, 'GET', '/webhooks?pageSize=100');
    expect(listed.body.data.map((w: { destinationUrl: string }) => w.destinationUrl)).not.toContain(
      'https://example.com/smuggled',
    );
  });

  it('refuses a revoked key’s actor at once, and one revoked after a call within seconds', async () => {
    const never = await freshKeyOfA();
    await c.admin.revokeKey(never.id);
    expect(await codeOf(webhooksAs(never.actor).listWebhooks({ actor: { ...never.actor, requestId: 'r' } }))).toBe(
      'Unauthenticated',
    );

    const later = await freshKeyOfA();
    const list = () => codeOf(webhooksAs(later.actor).listWebhooks({ actor: { ...later.actor, requestId: 'r' } }));
    expect(await list()).toBe('ok');
    await c.admin.revokeKey(later.id);
    const revokedAt = Date.now();
    while ((await list()) === 'ok' && Date.now() - revokedAt < 15_000) await new Promise((r) => setTimeout(r, 200));
    expect(await list()).toBe('Unauthenticated');
    // Remembered for seconds, as the gateway remembers a key: not for longer than that and a margin.
    expect(Date.now() - revokedAt).toBeLessThan(10_000);
  });

  it('refuses an actor naming a portal session that is not live here: unknown, unopened, ended, expired, another’s, or narrower', async () => {
    const mint = async (body: Record<string, unknown> = {}) => {
      const res = await c.api(a.key, 'POST', '/portal-sessions', body);
      expect(res.status).toBe(201);
      return res.body as { id: string; url: string };
    };
    const open = async (url: string) =>
      expect((await fetch(`${new URL(c.baseUrl).origin}${url}`, { redirect: 'manual' })).status).toBe(303);
    const naming = (portalSessionId: string, over: Partial<ActorClaims> = {}): ActorClaims => ({
      ...claimsOf(actorA),
      permissions: ['read:webhook'],
      portalSessionId,
      ...over,
    });
    const list = (actor: ActorClaims) => codeOf(webhooksAs(actor).listWebhooks({ actor: { ...actor, requestId: 'r' } }));

    const live = await mint({ access: 'read-only' });
    await open(live.url);
    expect(await list(naming(live.id))).toBe('ok');
    expect(await list(naming(randomUUID()))).toBe('Unauthenticated');
    expect(await list(naming((await mint()).id))).toBe('Unauthenticated'); // minted, never opened
    expect(await list({ ...forgedActorOfB(), permissions: ['read:webhook'], portalSessionId: live.id })).toBe('Unauthenticated');
    // More than the session grants: a permission of the key it lacks, another scope.
    expect(await list(naming(live.id, { permissions: ['read:webhook', 'write:webhook'] }))).toBe('PermissionDenied');
    expect(await list(naming(live.id, { scope: 'project', scopedProjectId: a.projectId }))).toBe('PermissionDenied');

    // Ended before its time by a key (DELETE /portal-sessions/:id): refused at once, whatever the gateway says.
    const ended = await mint({ access: 'read-only' });
    await open(ended.url);
    expect(await list(naming(ended.id))).toBe('ok');
    expect((await c.api(a.key, 'DELETE', `/portal-sessions/${ended.id}`)).status).toBe(204);
    expect(await list(naming(ended.id))).toBe('Unauthenticated');

    const brief = await mint({ access: 'read-only', lifetimeSeconds: 5 });
    await open(brief.url);
    expect(await list(naming(brief.id))).toBe('ok');
    const refused = await until(
      () => list(naming(brief.id)),
      (code) => code !== 'ok',
      15_000,
    );
    expect(refused).toBe('Unauthenticated');
  });

  it('refuses an actor whose grants the token overstates (actor_changed), as the core does', async () => {
    const { actor } = await freshKeyOfA();
    const overstated = { ...actor, role: 'admin', permissions: [...actor.permissions, 'made:up'] };
    expect(await codeOf(webhooksAs(overstated).listWebhooks({ actor: { ...overstated, requestId: 'r' } }))).toBe(
      'FailedPrecondition',
    );
  });
});

describe('the rules of a route, enforced again by the backend it calls (OPERATION_RULES)', () => {
  /** The core's actor of a key of A made with `options` (as the gateway would carry it). */
  async function actorOf(options: { scope: 'organization' | 'project'; permissions?: string; project?: string }) {
    const { key } = await c.admin.createKey({ user: a.adminId, ...options });
    const auth = createClient(AuthService, transportAs('gateway', 'core', core()));
    return claimsOf((await auth.authenticate({ key, requestId: 'r' })).actor!);
  }

  it('a gateway-signed token of a read-only key cannot create or delete projects in the core', async () => {
    const readOnly = await actorOf({ scope: 'organization', permissions: 'read:project' });
    const gateway = signerOf('gateway', 'gateway');
    const projects = createClient(
      ProjectService,
      withToken(core(), () => gateway('core', readOnly)),
    );
    const create = projects.createProject({ actor: { ...readOnly, requestId: 'attack' }, body: { name: 'smuggled' } });
    expect(await codeOf(create)).toBe('PermissionDenied');
    expect(await codeOf(projects.deleteProject({ actor: { ...readOnly, requestId: 'attack' }, id: a.projectId }))).toBe(
      'PermissionDenied',
    );
    const audit = createClient(
      AuditService,
      withToken(core(), () => gateway('core', readOnly)),
    );
    expect(await codeOf(audit.listAuditEvents({ actor: { ...readOnly, requestId: 'attack' }, page: 1, pageSize: 10 }))).toBe(
      'PermissionDenied',
    );
    // What the key may do, it still does.
    expect(await codeOf(projects.getProject({ actor: { ...readOnly, requestId: 'r' }, id: a.projectId }))).toBe('ok');
    const listed = await c.api(a.key, 'GET', '/projects');
    expect(listed.body.data.map((p: { name: string }) => p.name)).not.toContain('smuggled');
  });

  it('a project-scoped key cannot list the organization’s webhooks, even with every permission', async () => {
    const scoped = await actorOf({ scope: 'project', project: a.projectId });
    const gateway = signerOf('gateway', 'gateway');
    const webhooks = createClient(
      WebhookService,
      withToken(delivery(), () => gateway('delivery', scoped)),
    );
    expect(await codeOf(webhooks.listWebhooks({ actor: { ...scoped, requestId: 'attack' }, page: 1, pageSize: 10 }))).toBe(
      'PermissionDenied',
    );
  });
});

describe('default deny: a backend serves only the RPCs it lists (issue 37, item 4)', () => {
  /**
   * Who may call each RPC besides the gateway for the operation table's (OPERATION_RULES): written
   * out here, not read from the services, so that an RPC a service starts to serve, or to whom,
   * fails this test until it is listed on purpose (docs/security.md, "Behind the edge").
   */
  const INTERNAL: Record<string, readonly ServiceName[]> = {
    'cluster.core.v1.AuthService/Authenticate': ['gateway'],
    'cluster.core.v1.CodeHostService/ReceiveWebhook': ['gateway'],
    'cluster.core.v1.AuditService/RecordAuditEvent': ['delivery', 'evidence'],
    'cluster.core.v1.AuthService/ConfirmActor': ['delivery'],
    'cluster.core.v1.ReleaseEvidenceService/GetReleaseFacts': ['evidence'],
    'cluster.core.v1.SessionService/AuthenticateSession': ['evidence'],
    'cluster.core.v1.OAuthService/RegisterClient': ['gateway'],
    'cluster.core.v1.OAuthService/GetClient': ['gateway'],
    'cluster.core.v1.OAuthService/Approve': ['gateway'],
    'cluster.core.v1.OAuthService/ExchangeCode': ['gateway'],
    'cluster.core.v1.OAuthService/Refresh': ['gateway'],
    'cluster.core.v1.OAuthService/Revoke': ['gateway'],
    'cluster.delivery.v1.PortalService/OpenPortalSession': ['gateway'],
    'cluster.delivery.v1.PortalService/AuthenticatePortalSession': ['gateway'],
    'cluster.delivery.v1.PortalService/EndPortalSession': ['gateway'],
    'cluster.evidence.v1.EvidenceService/GetEvidencePublicKeys': ['gateway'],
    'cluster.evidence.v1.EvidenceService/GetEvidenceKey': ['gateway'],
    'cluster.evidence.v1.EvidenceService/RotateEvidenceKey': ['gateway'],
  };
  const REFUSED = /may not call|is served to no caller/;

  /** One transport per caller and backend, each call with the caller's valid token for the method it makes. */
  const transports = new Map<string, ReturnType<typeof withToken>>();
  function transportOf(caller: ServiceName, backend: 'core' | 'delivery' | 'evidence') {
    const key = `${caller}->${backend}`;
    let transport = transports.get(key);
    if (!transport) {
      const sign = signerOf(caller, caller);
      transports.set(key, (transport = withToken(`http://127.0.0.1:${c.ports[backend]}`, () => sign(backend))));
    }
    return transport;
  }

  /** How a backend answers `caller`'s valid token for the RPC `name`, with an empty message: its Connect code and message. */
  async function answerTo(caller: ServiceName, name: string): Promise<{ code: string; message: string }> {
    const method = RPC_METHODS.get(name)!;
    const backend = /^cluster\.(\w+)\./.exec(name)![1] as 'core' | 'delivery' | 'evidence';
    const client = createClient(method.parent, transportOf(caller, backend));
    try {
      const answer = (client[method.localName] as (m: object) => Promise<unknown> | AsyncIterable<unknown>)({});
      // A server stream (WebhookService/Listen) is refused or served at its first message.
      if (method.methodKind === 'server_streaming') for await (const _ of answer as AsyncIterable<unknown>) break;
      else await answer;
      return { code: 'ok', message: '' };
    } catch (err) {
      const e = ConnectError.from(err);
      return { code: Code[e.code], message: e.rawMessage };
    }
  }

  it('every RPC of every descriptor: refused to each caller not listed for it, served to the listed ones', async () => {
    const unlisted = [...RPC_METHODS.keys()].filter((name) => !OPERATION_RULES[name] && !INTERNAL[name]);
    expect(unlisted, 'RPCs in the descriptors that neither the operation table nor this test lists').toEqual([]);
    for (const name of RPC_METHODS.keys()) {
      const allowed = OPERATION_RULES[name] ? ['gateway'] : (INTERNAL[name] ?? []);
      for (const caller of ['gateway', 'core', 'delivery', 'evidence'] as const) {
        const { code, message } = await answerTo(caller, name);
        if (allowed.includes(caller)) expect(message, `${caller} -> ${name}`).not.toMatch(REFUSED);
        else
          expect({ code, refused: REFUSED.test(message) }, `${caller} -> ${name}: ${message}`).toEqual({
            code: 'PermissionDenied',
            refused: true,
          });
      }
    }
  }, 180_000);

  it('an RPC that nothing lists is served to no caller, whatever its token', () => {
    const policy = servedRpcs('core', { 'cluster.core.v1.AuthService/Authenticate': { callers: ['gateway'] } });
    expect(policy('cluster.core.v1.AuthService/Authenticate')).toEqual({ callers: ['gateway'] });
    expect(policy('cluster.core.v1.EntryService/CreateEntry')).toEqual({ callers: ['gateway'] });
    expect(policy('cluster.core.v1.AuthService/ConfirmActor')).toBeUndefined();
    expect(policy('cluster.core.v1.EntryService/DropEntries')).toBeUndefined();
    // Another backend's operation is not the core's to serve.
    expect(policy('cluster.delivery.v1.WebhookService/ListWebhooks')).toBeUndefined();
    expect(() => servedRpcs('core', { 'cluster.delivery.v1.WebhookService/ListWebhooks': { callers: ['core'] } })).toThrow(
      /not an internal RPC of the core service/,
    );
  });
});
