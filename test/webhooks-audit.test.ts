import { DEFAULT_PERMISSIONS } from '@cluster/contracts';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Code, createClient } from '@connectrpc/connect';
import { transportAs } from './support/service-calls.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiWrite, readDeliveryConfig, recordWrite, startDelivery } from '@cluster/delivery';
import { createDb } from '@cluster/db';
import { create } from '@bufbuild/protobuf';
import { ActorSchema, AuditService, WebhookService } from '@cluster/proto';
import { dropDatabase, freshDatabaseUrl, startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// The delivery service queues the audit event of every webhook write in the write's own
// transaction and forwards it to the core, so a core that is down delays it, never loses it.
let c: TestCluster;
let org: SeededOrg;
/** The Actor the gateway would send for the org's admin key. */
const actorOf = (o: SeededOrg) => ({
  apiKeyId: o.keyId,
  organizationId: o.orgId,
  userId: o.adminId,
  role: 'admin',
  scope: 'organization',
  // The admin key's grants: the delivery service enforces the route's rule (write:webhook) itself.
  permissions: [...DEFAULT_PERMISSIONS.admin],
  requestId: '',
});
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Audit Forwarding Org');
});
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
  await c?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function auditActions(entityId: string): Promise<string[]> {
  const res = await c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription&pageSize=100');
  return res.body.data.filter((e: { entityId: string }) => e.entityId === entityId).map((e: { action: string }) => e.action);
}

async function waitForActions(entityId: string, count: number, timeoutMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const actions = await auditActions(entityId);
    if (actions.length >= count || Date.now() > deadline) return actions;
    await sleep(100);
  }
}

/** A free local port with nothing listening on it (yet). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts forwarding 127.0.0.1:port to the core: the core "comes back". Returns its closer. */
async function proxyTo(port: number, target: number): Promise<() => Promise<void>> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
}

describe('audit events of webhook writes', () => {
  it('reach the core for every write, with the time of the write', async () => {
    const before = new Date();
    const sub = (
      await c.api(org.key, 'POST', '/webhooks', { destinationUrl: 'https://example.com/a', eventNames: ['entry.created'] })
    ).body;
    expect((await c.api(org.key, 'PATCH', `/webhooks/${sub.id}`, { enabled: false })).status).toBe(200);
    expect((await c.api(org.key, 'DELETE', `/webhooks/${sub.id}`)).status).toBe(204);
    expect(await waitForActions(sub.id, 3)).toEqual(['deleted', 'updated', 'created']);
    const res = await c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription&action=updated');
    const updated = res.body.data.find((e: { entityId: string }) => e.entityId === sub.id);
    expect(updated.metadata).toMatchObject({
      actorType: 'api_key',
      apiKeyId: org.keyId,
      fields: ['enabled'],
      service: 'delivery',
    });
    expect(new Date(updated.createdAt).getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
  });

  it('records an id once: a forwarded audit event that is sent again is not duplicated', async () => {
    const core = createClient(AuditService, transportAs('delivery', 'core', `http://127.0.0.1:${c.ports.core}`));
    const actor = actorOf(org);
    const entityId = randomUUID();
    const id = randomUUID();
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < 2; i++) {
      await core.recordAuditEvent({
        id,
        occurredAt,
        actor,
        entityType: 'webhook_subscription',
        action: 'created',
        entityId,
        metadata: {},
      });
    }
    const res = await c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription&pageSize=100');
    const mine = res.body.data.filter((e: { entityId: string }) => e.entityId === entityId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ id, createdAt: occurredAt });
    await expect(core.recordAuditEvent({ id: 'nope', actor, entityType: 'x', action: 'y', entityId })).rejects.toThrow(/UUID/);
  });

  it('drops (and counts) an event the core refuses as malformed, so the ones behind it still arrive', async () => {
    const db = createDb(c.databaseUrl, { schema: 'delivery', poolMax: 1 });
    const bad = randomUUID();
    const good = randomUUID();
    try {
      // An actor without an organization: the core answers unauthenticated, every time.
      await db.transaction(async (trx) => {
        const created = (entityId: string) => ({ entityType: 'webhook_subscription', action: 'created', entityId });
        await recordWrite(trx, apiWrite(create(ActorSchema, { ...actorOf(org), organizationId: '' }), created(bad)));
        await recordWrite(trx, apiWrite(create(ActorSchema, actorOf(org)), created(good)));
      });
    } finally {
      await db.destroy();
    }
    expect(await waitForActions(good, 1)).toEqual(['created']);
    expect(await auditActions(bad)).toEqual([]);
    const metrics = await (await fetch(`http://127.0.0.1:${c.ports.delivery}/metrics`)).text();
    expect(metrics).toMatch(/^delivery_audit_forward_rejected_total\{[^}]*\} 1$/m);
  });

  it('waits while the core is unreachable and arrives once it is back', async () => {
    // A delivery instance of its own (own database) whose core address answers nothing yet.
    const corePort = await closedPort();
    const databaseUrl = freshDatabaseUrl('audit');
    const replica = await startDelivery({
      ...readDeliveryConfig(),
      port: 0,
      databaseUrl,
      kafkaBrokers: c.brokers,
      topicPrefix: c.topicPrefix,
      coreUrl: `http://127.0.0.1:${corePort}`,
    });
    cleanup.push(
      () => dropDatabase(databaseUrl),
      () => replica.shutdown.run('test'),
    );
    // A webhook write's audit record, queued as the write queues it (an API call would be refused now: the
    // delivery service asks the core whether the key is still valid before it writes for it).
    const id = randomUUID();
    const db = createDb(databaseUrl, { schema: 'delivery', poolMax: 1 });
    try {
      await db.transaction((trx) =>
        recordWrite(
          trx,
          apiWrite(create(ActorSchema, actorOf(org)), { entityType: 'webhook_subscription', action: 'created', entityId: id }),
        ),
      );
    } finally {
      await db.destroy();
    }
    const webhooks = createClient(WebhookService, transportAs('gateway', 'delivery', `http://127.0.0.1:${replica.port}`));
    const refused = webhooks.createWebhook({
      actor: actorOf(org),
      body: { destinationUrl: 'https://example.com/b', eventNames: ['entry.created'] },
    });
    await expect(refused).rejects.toMatchObject({ code: Code.Unavailable });

    await sleep(1500);
    expect(await auditActions(id)).toEqual([]);
    const metrics = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
    expect(metrics).toMatch(/^delivery_audit_forward_backlog\{[^}]*\} 1$/m);

    const closeProxy = await proxyTo(corePort, c.ports.core);
    cleanup.push(closeProxy);
    expect(await waitForActions(id, 1, 40_000)).toEqual(['created']);
  });
});
