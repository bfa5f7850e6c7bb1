import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventLog, startTestCluster, type EventLog, type SeededOrg, type TestCluster } from './support/cluster.ts';
import type { Json } from './support/json.ts';
import { createReceivers, verifyServiceSignature, verifyStandardSignature, type Responder } from './support/receiver.ts';
import { until } from './support/poll.ts';
import { expectCatalogued } from './support/catalogue.ts';

// 24 h of retries compressed into 2.5 s: steps of ~50 ms, 200 ms, 800 ms, then the deadline.
const ENV = {
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_AGE_MS: '2500',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_POLL_MS: '100',
};

let c: TestCluster;
let deadLetters: EventLog;
const receivers = createReceivers();
const receiver = () => receivers.start();

beforeAll(async () => {
  c = await startTestCluster({ env: ENV });
  deadLetters = await createEventLog(c.brokers, `${c.topicPrefix}cluster.webhook-deliveries.dead-letter.v1`);
});
afterAll(async () => {
  await deadLetters?.stop();
  await receivers.closeAll();
  await c?.stop();
});

async function subscribe(org: SeededOrg, url: string, eventNames: string[], extra: Record<string, unknown> = {}) {
  const res = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: url, eventNames, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; hmacSecret: string; eventNames: string[]; enabled: boolean };
}

/** Mints a key in the org: emits api_key.created. */
const keyCreated = (org: SeededOrg) => c.admin.createKey({ user: org.adminId, scope: 'organization' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook subscriptions', () => {
  it("leaves an audit event for every write through a key, in the core's audit trail", async () => {
    const org = await c.seedOrg('Audit Org');
    const sub = await subscribe(org, 'https://example.com/audited', ['entry.created']);
    expect((await c.api(org.key, 'PATCH', `/webhooks/${sub.id}`, { description: 'renamed' })).status).toBe(200);
    expect((await c.api(org.key, 'POST', `/webhooks/${sub.id}/rotate-secret`)).status).toBe(200);
    expect((await c.api(org.key, 'DELETE', `/webhooks/${sub.id}`)).status).toBe(204);
    // The delivery service forwards its audit events to the core right after each write.
    let res = await c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription');
    for (let i = 0; i < 100 && res.body.data.length < 4; i++) {
      await sleep(50);
      res = await c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription');
    }
    expect(res.body.data.map((e: { action: string }) => e.action)).toEqual(['deleted', 'secret_rotated', 'updated', 'created']);
    for (const e of res.body.data) {
      expect(e).toMatchObject({
        entityId: sub.id,
        actorId: org.adminId,
        metadata: { actorType: 'api_key', apiKeyId: org.keyId },
      });
    }
    expect(JSON.stringify(res.body)).not.toContain(sub.hmacSecret);
  });

  it('creates a subscription, returns the secret only then, and lists, gets, updates and deletes it', async () => {
    const org = await c.seedOrg('Crud Org');
    const created = await c.api(org.key, 'POST', '/webhooks', {
      destinationUrl: 'https://example.com/hooks',
      eventNames: ['entry.created', 'api_key.created'],
      description: 'mine',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      destinationUrl: 'https://example.com/hooks',
      destination: { type: 'http', url: 'https://example.com/hooks' },
      eventNames: ['entry.created', 'api_key.created'],
      enabled: true,
      description: 'mine',
      ordering: 'none',
      signatureScheme: 'hmac-sha256',
      publicKey: null,
      headers: {},
      auth: null,
      rateLimit: null,
      maxInFlight: null,
      pausedUntil: null,
      filter: null,
      disabledReason: null,
      consecutiveFailures: 0,
      failingSince: null,
      temporary: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      hmacSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{40,}$/),
    });
    const id = created.body.id as string;

    const listed = await c.api(org.key, 'GET', '/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ page: 1, pageSize: 25, total: 1 });
    expect(listed.body.data[0].id).toBe(id);
    expect(listed.body.data[0]).not.toHaveProperty('hmacSecret');
    expect((await c.api(org.key, 'GET', `/webhooks/${id}`)).body).not.toHaveProperty('hmacSecret');

    const patched = await c.api(org.key, 'PATCH', `/webhooks/${id}`, { enabled: false, description: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id,
      enabled: false,
      description: null,
      eventNames: ['entry.created', 'api_key.created'],
    });
    expect(patched.body).not.toHaveProperty('hmacSecret');
    expect((await c.api(org.key, 'GET', '/webhooks?enabled=true')).body.total).toBe(0);
    expect((await c.api(org.key, 'GET', '/webhooks?enabled=false')).body.total).toBe(1);

    // The secret is stored sealed, never in clear.
    const db = new pg.Client({ connectionString: c.databaseUrl });
    await db.connect();
    const { rows } = await db.query('SELECT * FROM delivery.subscriptions WHERE id = $1', [id]);
    await db.end();
    expect(JSON.stringify(rows[0])).not.toContain(created.body.hmacSecret.slice(6));

    const events = await c.events.waitFor((e) => e.entityId === id && e.eventName === 'webhook.subscription.created');
    expect(events[0]).toMatchObject({ entityType: 'webhook_subscription', organizationId: org.orgId, actorUserId: org.adminId });
    expect(JSON.stringify(events[0])).not.toContain(created.body.hmacSecret);

    const deleted = await c.api(org.key, 'DELETE', `/webhooks/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await c.api(org.key, 'DELETE', `/webhooks/${id}`)).status).toBe(404);
    expect((await c.api(org.key, 'GET', `/webhooks/${id}`)).status).toBe(404);
    expect((await c.api(org.key, 'GET', '/webhooks')).body.total).toBe(0);
    await c.events.waitFor((e) => e.entityId === id && e.eventName === 'webhook.subscription.deleted');
  });

  it('rejects unknown event names with exactly {error, invalid}, and other invalid bodies with validation_error', async () => {
    const org = await c.seedOrg('Names Org');
    const bad = await c.api(org.key, 'POST', '/webhooks', {
      destinationUrl: 'https://example.com/h',
      eventNames: ['entry.created', 'nope.event', 'project.created'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'unknown_event_names', invalid: ['nope.event', 'project.created'] });

    const sub = await subscribe(org, 'https://example.com/h', ['entry.created']);
    const badPatch = await c.api(org.key, 'PATCH', `/webhooks/${sub.id}`, { eventNames: ['bogus'] });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body).toEqual({ error: 'unknown_event_names', invalid: ['bogus'] });

    for (const body of [
      { destinationUrl: 'https://example.com/h', eventNames: [] },
      { destinationUrl: 'not a url', eventNames: ['entry.created'] },
      { eventNames: ['entry.created'] },
      { destinationUrl: 'https://example.com/h', eventNames: ['entry.created'], hmacSecret: 'x' },
      { destinationUrl: 'ftp://example.com/h', eventNames: ['entry.created'] },
    ]) {
      const res = await c.api(org.key, 'POST', '/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      expect(res.body.details.errors.length).toBeGreaterThan(0);
    }
  });

  it('keeps subscriptions inside their organization and needs an org key and the webhook permissions', async () => {
    const a = await c.seedOrg('Tenant A');
    const b = await c.seedOrg('Tenant B');
    const sub = await subscribe(a, 'https://example.com/a', ['entry.created']);
    for (const [method, path, body] of [
      ['GET', `/webhooks/${sub.id}`],
      ['PATCH', `/webhooks/${sub.id}`, { enabled: false }],
      ['DELETE', `/webhooks/${sub.id}`],
      ['POST', `/webhooks/${sub.id}/rotate-secret`],
      ['POST', `/webhooks/${sub.id}/test`],
      ['GET', `/webhooks/${sub.id}/deliveries`],
      ['GET', `/webhooks/${sub.id}/deliveries/${sub.id}`],
      ['GET', '/webhooks/not-a-uuid'],
    ] as const) {
      const res = await c.api(b.key, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.reason).toBe('not_found');
    }
    expect((await c.api(b.key, 'GET', '/webhooks')).body.total).toBe(0);

    const projectKey = await c.admin.createKey({ user: a.adminId, scope: 'project', project: a.projectId });
    for (const [method, path] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['PATCH', `/webhooks/${sub.id}`],
    ] as const) {
      const res = await c.api(projectKey.key, method, path, method === 'GET' ? undefined : { enabled: true });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.reason).toBe('scope_violation');
    }

    const readOnly = await c.admin.createKey({ user: a.adminId, scope: 'organization', permissions: 'read:webhook' });
    expect((await c.api(readOnly.key, 'GET', '/webhooks')).status).toBe(200);
    const denied = await c.api(readOnly.key, 'POST', '/webhooks', {
      destinationUrl: 'https://example.com/x',
      eventNames: ['entry.created'],
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ reason: 'forbidden', message: 'missing permission write:webhook' });
    expect((await c.api(readOnly.key, 'DELETE', `/webhooks/${sub.id}`)).body.message).toBe('missing permission delete:webhook');
  });
});

describe('webhook deliveries', () => {
  it('delivers an `entry.*` subscription the entry events only, a `*` one every public event, and refuses a wildcard matching nothing', async () => {
    const org = await c.seedOrg('Wildcard Org');
    const bad = await c.api(org.key, 'POST', '/webhooks', {
      destinationUrl: 'https://example.com/h',
      eventNames: ['entry.*', 'nope.*', 'entry*'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('validation_error');
    expect(bad.body.details.errors.map((e: { path: string }) => e.path)).toEqual(['/eventNames/1', '/eventNames/2']);

    const entries = await receiver();
    const everything = await receiver();
    const family = await subscribe(org, entries.url, ['entry.*']);
    expect(family.eventNames).toEqual(['entry.*']);
    await subscribe(org, everything.url, ['*']);
    const badPatch = await c.api(org.key, 'PATCH', `/webhooks/${family.id}`, { eventNames: ['release.created.*'] });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.details.errors[0].path).toBe('/eventNames/0');

    // project.created (internal), entry.created, entry.updated, release.created: in that order.
    const project = await c.api(org.key, 'POST', '/projects', { name: 'Wildcards', description: 'w' });
    expect(project.status).toBe(201);
    const entry = await c.api(org.key, 'POST', `/projects/${project.body.id}/entries`, {
      type: 'bug_report',
      title: 'wildcard',
      description: 'd',
    });
    expect(entry.status).toBe(201);
    expect((await c.api(org.key, 'PATCH', `/entries/${entry.body.id}`, { title: 'wildcard, renamed' })).status).toBe(200);
    const release = await c.api(org.key, 'POST', `/projects/${project.body.id}/releases`, {
      name: 'R wildcard',
      startDate: '2026-11-01',
      endDate: '2026-12-01',
    });
    expect(release.status).toBe(201);

    const byEntity = (r: { body: { entityId?: string } }) => [entry.body.id, release.body.id].includes(r.body.entityId);
    const got = await entries.waitFor(2, byEntity);
    expect(got.map((r) => r.body.eventName).sort()).toEqual(['entry.created', 'entry.updated']);
    const gotAll = await everything.waitFor(3, byEntity);
    expect(gotAll.map((r) => r.body.eventName).sort()).toEqual(['entry.created', 'entry.updated', 'release.created']);
    expect(verifyServiceSignature(family.hmacSecret, got[0])).toBe(true);
    // release.created reached `*`, so its fan-out (one write for every matching subscription) is done:
    // the entry family has no delivery of it, nor of any project event.
    const listed = await c.api(org.key, 'GET', `/webhooks/${family.id}/deliveries`);
    expect(listed.body.data.map((d: { eventName: string }) => d.eventName).sort()).toEqual(['entry.created', 'entry.updated']);
    expect(entries.received.map((r) => r.body.eventName)).not.toContain('release.created');
    expect(everything.received.map((r) => r.body.eventName).filter((n: string) => n.startsWith('project.'))).toEqual([]);

    // A test call may name any event the wildcard selects, and no other.
    expect((await c.api(org.key, 'POST', `/webhooks/${family.id}/test`, { eventName: 'entry.commented' })).status).toBe(200);
    const refused = await c.api(org.key, 'POST', `/webhooks/${family.id}/test`, { eventName: 'release.created' });
    expect(refused.status).toBe(400);
    expect(refused.body.details.errors[0].path).toBe('/eventName');
  });

  it('signs every delivery over the raw body, with every spec header and envelope field', async () => {
    const org = await c.seedOrg('Signed Org');
    const r = await receiver();
    const sub = await subscribe(org, r.url, ['api_key.created']);
    const key = await keyCreated(org);
    const [got] = await r.waitFor(1);

    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Service-Outbound-Webhook/1.0');
    expect(got.headers['x-service-event']).toBe('api_key.created');
    const ts = Number(got.headers['x-service-timestamp']);
    expect(String(ts)).toMatch(/^\d{10}$/);
    // Whole seconds taken at send time: not after the arrival, and less than a second (plus transit) before it.
    expect(ts).toBeLessThanOrEqual(got.arrivedAt / 1000);
    expect(got.arrivedAt / 1000 - ts).toBeLessThan(1.5);
    expect(verifyServiceSignature(sub.hmacSecret, got)).toBe(true);
    expect(got.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    expect(Object.keys(got.body).sort()).toEqual([
      'actorUserId',
      'entityId',
      'entityType',
      'eventName',
      'id',
      'occurredAt',
      'payload',
      'schemaVersion',
    ]);
    expect(got.body).toMatchObject({
      id: got.headers['x-service-delivery-id'],
      eventName: 'api_key.created',
      schemaVersion: 1,
      entityType: 'api_key',
      entityId: key.id,
      actorUserId: org.adminId,
    });
    expect(new Date(got.body.occurredAt).toISOString()).toBe(got.body.occurredAt);
    expect(got.body.payload.occurredAt).toBe(got.body.occurredAt);

    // Standard Webhooks headers beside them: same id and timestamp, v1 signature over "id.timestamp.body".
    expect(got.headers['webhook-id']).toBe(got.body.id);
    expect(got.headers['webhook-timestamp']).toBe(got.headers['x-service-timestamp']);
    expect(verifyStandardSignature(sub.hmacSecret, got)).toBe(true);

    // The receiver has the request before the attempt is recorded: wait for the record.
    const record = await until(
      () => c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries/${got.body.id}`),
      (r) => r.body?.status === 'succeeded',
    );
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      id: got.body.id,
      subscriptionId: sub.id,
      eventName: 'api_key.created',
      status: 'succeeded',
      attempts: 1,
      responseCode: 200,
      responseBody: 'ok',
      error: null,
      nextAttemptAt: null,
    });
    expect(record.body.eventId).toEqual(expect.any(String));
    expect(record.body.attemptLog).toEqual([expect.objectContaining({ attempt: 1, outcome: 'succeeded', responseCode: 200 })]);
  });

  it('signs with the new secret from the moment it is rotated', async () => {
    const org = await c.seedOrg('Rotate Org');
    const r = await receiver();
    const sub = await subscribe(org, r.url, ['api_key.created']);
    const rotated = await c.api(org.key, 'POST', `/webhooks/${sub.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: sub.id, hmacSecret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.hmacSecret).not.toBe(sub.hmacSecret);
    await keyCreated(org);
    const [got] = await r.waitFor(1);
    expect(verifyServiceSignature(rotated.body.hmacSecret, got)).toBe(true);
    expect(verifyStandardSignature(rotated.body.hmacSecret, got)).toBe(true);
    expect(verifyServiceSignature(sub.hmacSecret, got)).toBe(false);
  });

  it('retries a failing receiver with the same delivery id until it answers 2xx, and logs every attempt', async () => {
    const org = await c.seedOrg('Retry Org');
    const r = await receiver();
    r.respond((_, i) => (i < 3 ? { status: 500, body: `boom ${i}` } : { status: 200, body: 'finally' }));
    const sub = await subscribe(org, r.url, ['api_key.created']);
    await keyCreated(org);
    const got = await r.waitFor(4);
    const ids = new Set(got.map((g) => g.headers['x-service-delivery-id']));
    expect(ids.size).toBe(1);
    expect(got.every((g) => g.body.id === got[0].body.id && g.rawBody === got[0].rawBody)).toBe(true);
    for (const g of got) expect(verifyServiceSignature(sub.hmacSecret, g)).toBe(true);
    // Waits grow: each gap at least the jittered step (50 ms, 200 ms, 800 ms, -20%).
    expect(got[1].arrivedAt - got[0].arrivedAt).toBeGreaterThanOrEqual(35);
    expect(got[3].arrivedAt - got[2].arrivedAt).toBeGreaterThanOrEqual(600);

    const id = got[0].body.id as string;
    const record = await until(
      () => c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries/${id}`),
      (r) => r.body?.status === 'succeeded',
    );
    expect(record.body).toMatchObject({
      status: 'succeeded',
      attempts: 4,
      responseCode: 200,
      responseBody: 'finally',
      nextAttemptAt: null,
    });
    expect(
      record.body.attemptLog.map((a: { outcome: string; responseCode: number; responseBody: string; attempt: number }) => [
        a.attempt,
        a.outcome,
        a.responseCode,
        a.responseBody,
      ]),
    ).toEqual([
      [1, 'failed', 500, 'boom 0'],
      [2, 'failed', 500, 'boom 1'],
      [3, 'failed', 500, 'boom 2'],
      [4, 'succeeded', 200, 'finally'],
    ]);
    expect(record.body.attemptLog[0].error).toBe('HTTP 500');
  });

  it('dead-letters a delivery that never succeeds once the max age passes, and publishes it with its last error', async () => {
    const org = await c.seedOrg('Dead Org');
    const r = await receiver();
    r.respond(() => ({ status: 503, body: 'down for good' }));
    const sub = await subscribe(org, r.url, ['api_key.created']);
    await keyCreated(org);
    const [dead] = await deadLetters.waitFor(
      (e) => (e as unknown as { subscriptionId: string }).subscriptionId === sub.id,
      1,
      15000,
    );
    const message = dead as unknown as Record<string, Json>;
    const attempts = r.received;
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(message).toMatchObject({
      id: attempts[0].body.id,
      deliveryId: attempts[0].body.id,
      eventName: 'api_key.created',
      subscriptionId: sub.id,
      organizationId: org.orgId,
      attempts: attempts.length,
      lastError: { error: 'HTTP 503', responseCode: 503, responseBody: 'down for good' },
    });
    expect(message.envelope).toEqual(attempts[0].body);
    const age = new Date(message.deadLetteredAt).getTime() - new Date(message.firstAttemptAt).getTime();
    expect(age).toBeGreaterThanOrEqual(2500);

    const list = await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries?status=dead_letter`);
    expect(list.body.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({
      id: attempts[0].body.id,
      status: 'dead_letter',
      nextAttemptAt: null,
      attempts: attempts.length,
    });
    await sleep(300);
    expect(r.received.length).toBe(attempts.length);
  });

  it('delivers only subscribed names, nothing to disabled subscriptions, and nothing across organizations', async () => {
    const org = await c.seedOrg('Match Org');
    const other = await c.seedOrg('Other Org');
    const [created, revoked, disabled, foreign] = await Promise.all([receiver(), receiver(), receiver(), receiver()]);
    const subCreated = await subscribe(org, created.url, ['api_key.created']);
    const subRevoked = await subscribe(org, revoked.url, ['api_key.revoked', 'user.updated']);
    const subDisabled = await subscribe(org, disabled.url, ['api_key.created', 'api_key.revoked'], { enabled: false });
    const subForeign = await subscribe(other, foreign.url, ['api_key.created', 'api_key.revoked', 'user.updated']);

    const key = await keyCreated(org);
    await c.admin.revokeKey(key.id);
    await c.admin.setRole(org.adminId, 'platform_admin'); // a real change: only changes emit user.updated
    // A control event of the other organization, so its silence about ours is meaningful.
    await keyCreated(other);

    await created.waitFor(1);
    await revoked.waitFor(2);
    await foreign.waitFor(1);
    await sleep(500);
    expect(created.received.map((g) => g.body.eventName)).toEqual(['api_key.created']);
    expect(created.received[0].body.entityId).toBe(key.id);
    expect(revoked.received.map((g) => g.body.eventName).sort()).toEqual(['api_key.revoked', 'user.updated']);
    expect(disabled.received).toHaveLength(0);
    expect(foreign.received).toHaveLength(1);
    expect(foreign.received[0].body.entityId).not.toBe(key.id);
    expect((await c.api(org.key, 'GET', `/webhooks/${subDisabled.id}/deliveries`)).body.total).toBe(0);
    expect((await c.api(org.key, 'GET', `/webhooks/${subCreated.id}/deliveries`)).body.total).toBe(1);
    expect((await c.api(org.key, 'GET', `/webhooks/${subRevoked.id}/deliveries`)).body.total).toBe(2);
    expect((await c.api(other.key, 'GET', `/webhooks/${subForeign.id}/deliveries`)).body.total).toBe(1);
  });

  it('sends a new subscription only the events that occurred after it was created', async () => {
    const org = await c.seedOrg('History Org');
    const r = await receiver();
    const before = await keyCreated(org);
    await c.flushOutbox();
    await subscribe(org, r.url, ['api_key.created']);
    const after = await keyCreated(org);
    const [got] = await r.waitFor(1);
    expect(got.body.entityId).toBe(after.id);
    await sleep(500);
    expect(r.received.map((g) => g.body.entityId)).not.toContain(before.id);
    expect(r.received).toHaveLength(1);
  });

  it('delivers domain events written through the API, such as entry.created', async () => {
    const org = await c.seedOrg('Entry Events Org');
    const r = await receiver();
    const sub = await subscribe(org, r.url, ['entry.created']);
    const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      type: 'bug_report',
      title: 'Pay button',
      description: 'Nothing happens',
    });
    expect(entry.status).toBe(201);
    const [got] = await r.waitFor(1);
    expect(got.body).toMatchObject({
      eventName: 'entry.created',
      entityType: 'entry',
      entityId: entry.body.id,
      actorUserId: org.adminId,
    });
    expect(got.body.payload).toMatchObject({ entryId: entry.body.id, projectId: org.projectId, title: 'Pay button' });
    expect(verifyServiceSignature(sub.hmacSecret, got)).toBe(true);
  });

  it('stops pending retries when a subscription is disabled', async () => {
    const org = await c.seedOrg('Stop Org');
    const r = await receiver();
    r.respond(() => ({ status: 500 }));
    const sub = await subscribe(org, r.url, ['api_key.created']);
    await keyCreated(org);
    await r.waitFor(2);
    expect((await c.api(org.key, 'PATCH', `/webhooks/${sub.id}`, { enabled: false })).status).toBe(200);
    const seen = r.received.length;
    await sleep(1200);
    expect(r.received.length).toBeLessThanOrEqual(seen + 1); // at most the attempt already in flight
    const list = await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries`);
    expect(list.body.data[0]).toMatchObject({ status: 'failed', nextAttemptAt: null });
  });

  it('fails redirects and timeouts, honours Retry-After, and stores at most 4 KiB of a response body', async () => {
    const org = await c.seedOrg('Outcome Org');
    const r = await receiver();
    const answers: ReturnType<Responder>[] = [
      { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } },
      { status: 200, delayMs: 1500 },
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200, body: 'x'.repeat(10_000) },
    ];
    r.respond((_, i) => answers[Math.min(i, 3)]);
    const sub = await subscribe(org, r.url, ['api_key.created']);
    await keyCreated(org);
    const got = await r.waitFor(4, () => true, 15000);
    expect(got[3].arrivedAt - got[2].arrivedAt).toBeGreaterThanOrEqual(950);
    const id = got[0].body.id as string;
    const record = await until(
      () => c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries/${id}`),
      (r) => r.body?.status === 'succeeded',
    );
    const log = record.body.attemptLog as {
      outcome: string;
      error: string | null;
      responseCode: number | null;
      responseBody: string | null;
    }[];
    expect(log[0]).toMatchObject({ outcome: 'failed', responseCode: 302, error: expect.stringContaining('redirect') });
    expect(log[1]).toMatchObject({ outcome: 'failed', responseCode: null, error: expect.stringContaining('timeout') });
    expect(log[2]).toMatchObject({ outcome: 'failed', responseCode: 429 });
    expect(log[3]).toMatchObject({ outcome: 'succeeded', responseCode: 200 });
    expect(log[3].responseBody).toHaveLength(4096);
    expect(record.body.responseBody).toHaveLength(4096);
  });

  it('lists delivery records with a status filter and pagination, newest first', async () => {
    const org = await c.seedOrg('List Org');
    const r = await receiver();
    const sub = await subscribe(org, r.url, ['api_key.created']);
    for (let i = 0; i < 3; i++) await keyCreated(org);
    await r.waitFor(3);
    await sleep(200);
    const page1 = await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries?pageSize=2`);
    expect(page1.body).toMatchObject({ page: 1, pageSize: 2, total: 3 });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries?pageSize=2&page=2`);
    expect(page2.body.data).toHaveLength(1);
    const all = [...page1.body.data, ...page2.body.data];
    expect(new Set(all.map((d: { id: string }) => d.id)).size).toBe(3);
    for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt >= all[i].createdAt).toBe(true);
    expect((await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries?status=failed`)).body.total).toBe(0);
    expect((await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries?status=succeeded`)).body.total).toBe(3);
    expect((await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries?status=bogus`)).status).toBe(400);
    expect((await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries?pageSize=101`)).status).toBe(400);
    const missing = await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries/00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
  });
});

describe('POST /webhooks/:id/test', () => {
  it('sends webhook.test by default and a named event of the subscription, signed, with the test result', async () => {
    const org = await c.seedOrg('Test Org');
    const r = await receiver();
    const sub = await subscribe(org, r.url, ['api_key.created', 'entry.created']);
    const res = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      deliveryId: expect.any(String),
      subscriptionId: sub.id,
      eventName: 'webhook.test',
      firedAt: expect.any(String),
    });
    const [got] = await r.waitFor(1);
    expect(got.headers['x-service-event']).toBe('webhook.test');
    expect(got.headers['x-service-delivery-id']).toBe(res.body.deliveryId);
    expect(got.body).toMatchObject({ id: res.body.deliveryId, eventName: 'webhook.test', schemaVersion: 1 });
    expect(verifyServiceSignature(sub.hmacSecret, got)).toBe(true);

    const named = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`, { eventName: 'entry.created' });
    expect(named.status).toBe(200);
    expect(named.body.eventName).toBe('entry.created');
    const [second] = await r.waitFor(2).then((all) => all.slice(1));
    expect(second.headers['x-service-event']).toBe('entry.created');
    // The named event's own body: the catalogue's example of entry.created, fresh ids, valid against its schema.
    const body = second.body as { entityType: string; entityId: string; occurredAt: string; payload: Record<string, unknown> };
    expect(body).toMatchObject({
      id: named.body.deliveryId,
      eventName: 'entry.created',
      entityType: 'entry',
      occurredAt: named.body.firedAt,
    });
    expect(body.payload).toMatchObject({ entryId: body.entityId, title: expect.any(String), status: 'open' });
    expect(body.payload).not.toHaveProperty('test');
    expectCatalogued(body as typeof body & { eventName: string });
    expect((got.body as { payload: unknown }).payload).toEqual({
      test: true,
      subscriptionId: sub.id,
      occurredAt: res.body.firedAt,
    });

    const record = await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries/${res.body.deliveryId}`);
    expect(record.body).toMatchObject({ status: 'succeeded', attempts: 1, eventName: 'webhook.test' });
  });

  it('answers 400 for a name outside the list, 404 for unknown or foreign ids, deliveryError when it fails', async () => {
    const org = await c.seedOrg('Test Errors Org');
    const other = await c.seedOrg('Test Foreign Org');
    const r = await receiver();
    r.respond(() => ({ status: 500, body: 'nope' }));
    const sub = await subscribe(org, r.url, ['api_key.created']);
    const notListed = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`, { eventName: 'entry.created' });
    expect(notListed.status).toBe(400);
    expect(notListed.body.reason).toBe('validation_error');
    expect((await c.api(org.key, 'POST', '/webhooks/00000000-0000-4000-8000-000000000000/test')).status).toBe(404);
    expect((await c.api(other.key, 'POST', `/webhooks/${sub.id}/test`)).status).toBe(404);

    const failed = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ deliveryId: expect.any(String), deliveryError: 'HTTP 500' });
    await sleep(400);
    // A test delivery is not retried.
    expect(r.received.filter((g) => g.body.id === failed.body.deliveryId)).toHaveLength(1);
  });

  it('allows 10 calls per organization per hour, then 429 with retryAfter', async () => {
    const org = await c.seedOrg('Test Limit Org');
    const r = await receiver();
    const sub = await subscribe(org, r.url, ['api_key.created']);
    for (let i = 0; i < 10; i++) expect((await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`)).status).toBe(200);
    const limited = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ reason: 'rate_limit', retryAfter: expect.any(Number) });
    expect(limited.body.retryAfter).toBeGreaterThan(3500);
    expect(limited.body.retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers.get('retry-after')).toBe(String(limited.body.retryAfter));
    expect(r.received.filter((g) => g.body.eventName === 'webhook.test')).toHaveLength(10);
    // The limit is per organization: another one still may.
    const other = await c.seedOrg('Test Limit Other');
    const otherSub = await subscribe(other, r.url, ['api_key.created']);
    expect((await c.api(other.key, 'POST', `/webhooks/${otherSub.id}/test`)).status).toBe(200);
  });
});

describe('docs/examples/webhook-receiver.mjs', () => {
  it('verifies real deliveries and rejects a tampered one', async () => {
    const org = await c.seedOrg('Docs Org');
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const sub = await subscribe(org, `http://127.0.0.1:${port}/hook`, ['api_key.created']);
    const script = path.resolve(import.meta.dirname, '..', 'docs', 'examples', 'webhook-receiver.mjs');
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, WEBHOOK_SECRET: sub.hmacSecret, PORT: String(port) },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      for (let i = 0; i < 100 && !out.includes('listening'); i++) await sleep(50);
      const res = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`);
      expect(res.body).not.toHaveProperty('deliveryError');
      expect(out).toContain(`verified webhook.test ${res.body.deliveryId}`);
      await keyCreated(org);
      for (let i = 0; i < 100 && !out.includes('verified api_key.created'); i++) await sleep(50);
      expect(out).toContain('verified api_key.created');
      const forged = await fetch(`http://127.0.0.1:${port}/hook`, {
        method: 'POST',
        body: '{"eventName":"webhook.test"}',
        headers: {
          'webhook-id': 'x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
          'x-service-signature': 'sha256=00',
        },
      });
      expect(forged.status).toBe(401);
    } finally {
      child.kill();
    }
  });
});

describe('delivery service operations', () => {
  it('stops pending retries when a subscription is deleted, and hides its records', async () => {
    const org = await c.seedOrg('Delete Org');
    const r = await receiver();
    r.respond(() => ({ status: 500 }));
    const sub = await subscribe(org, r.url, ['api_key.created']);
    await keyCreated(org);
    await r.waitFor(2);
    expect((await c.api(org.key, 'DELETE', `/webhooks/${sub.id}`)).status).toBe(204);
    const seen = r.received.length;
    await sleep(1200);
    expect(r.received.length).toBeLessThanOrEqual(seen + 1);
    expect((await c.api(org.key, 'GET', `/webhooks/${sub.id}/deliveries`)).status).toBe(404);
  });

  it('exports delivery metrics an SRE can alert on', async () => {
    const org = await c.seedOrg('Metrics Org');
    const r = await receiver();
    await subscribe(org, r.url, ['api_key.created']);
    await keyCreated(org);
    await r.waitFor(1);
    await sleep(200);
    const text = await (await fetch(`http://127.0.0.1:${c.ports.delivery}/metrics`)).text();
    const sample = (name: string, label = '') => text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
    expect(Number(sample('delivery_webhook_deliveries_total', 'outcome="succeeded"')?.split(' ').pop())).toBeGreaterThan(0);
    expect(sample('delivery_webhook_attempt_duration_seconds_bucket')).toBeDefined();
    expect(sample('delivery_webhook_consumer_lag', 'partition=')).toBeDefined();
    expect(sample('delivery_webhook_poison_messages_total')?.endsWith(' 0')).toBe(true);
    for (const name of [
      'delivery_webhook_dead_letters_total',
      'delivery_webhook_retry_backlog',
      'delivery_webhook_pending_deliveries',
      'delivery_webhook_oldest_pending_age_seconds',
      'delivery_webhook_oldest_overdue_age_seconds',
      'delivery_webhook_first_attempt_delay_seconds',
      'delivery_webhook_in_flight',
      'delivery_webhook_claim_duration_seconds',
      'delivery_outbox_backlog',
      'delivery_webhook_deliveries_pruned_total',
    ]) {
      expect(text, name).toContain(`# TYPE ${name} `);
    }
    const ready = await fetch(`http://127.0.0.1:${c.ports.delivery}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, checks: { postgres: true, kafka: true, consumer: true } });
  });
});
