import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, EVENT_NAMES, EMITTED_EVENTS, INTERNAL_EVENT_NAMES, type EventType } from '@cluster/contracts';
import { verify } from '@cluster/webhook-verify';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { catalogueAjv, expectCatalogued } from './support/catalogue.ts';
import { EMITTED_ELSEWHERE, everyEmittingPath } from './support/emitting-paths.ts';
import { keyLacking } from './support/people.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

// GET /webhooks/event-types, and the catalogue against what the cluster really emits: a
// scenario makes every emitting path of every service fire, through the real gateway, core,
// delivery service, outbox relays and Kafka; every event on the topic must be catalogued as
// emitted with a payload that validates against the served JSON Schema, and every name the
// catalogue calls emitted must have been seen.

let c: TestCluster;
let org: SeededOrg;
let receiver: Receiver;

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Catalogue Org');
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await c?.stop();
});

const catalogue = async (key = org.key, query = '') => c.api(key, 'GET', `/webhooks/event-types${query}`);

describe('GET /webhooks/event-types', () => {
  it('lists the whole vocabulary in its order, each with a description, entity type, emitted flag and payload schema', async () => {
    const res = await catalogue();
    expect(res.status).toBe(200);
    const data = res.body.data as EventType[];
    expect(res.body.total).toBe(EVENT_NAMES.length);
    expect(data.map((e) => e.name)).toEqual([...EVENT_NAMES]);
    const emitted = Object.keys(EMITTED_EVENTS).filter((n) => !(INTERNAL_EVENT_NAMES as readonly string[]).includes(n));
    expect(
      data
        .filter((e) => e.emitted)
        .map((e) => e.name)
        .sort(),
    ).toEqual(emitted.sort());
    const ajv = catalogueAjv();
    for (const e of data) {
      expect(Object.keys(e).sort()).toEqual(
        ['description', 'emitted', 'entityType', 'group', 'name', 'payloadSchema', ...(e.notes ? ['notes'] : [])].sort(),
      );
      expect(e.description.length, e.name).toBeGreaterThan(10);
      expect(e.entityType, e.name).toMatch(/^[a-z_]+$/);
      expect(e.group, e.name).not.toBe('other');
      // Every schema is a JSON Schema Ajv compiles, and requires occurredAt.
      expect(() => ajv.compile(e.payloadSchema), e.name).not.toThrow();
      expect(e.payloadSchema.required, e.name).toContain('occurredAt');
    }
    expect(data.find((e) => e.name === 'entry.created')).toMatchObject({
      entityType: 'entry',
      emitted: true,
      group: 'entry',
      payloadSchema: { type: 'object', additionalProperties: false },
    });
    expect(data.find((e) => e.name === 'invoice.paid')).toMatchObject({ entityType: 'invoice', emitted: false });
  });

  it('filters by emitted, and refuses other values and unknown parameters with 400', async () => {
    const yes = await catalogue(org.key, '?emitted=true');
    const no = await catalogue(org.key, '?emitted=false');
    expect(yes.body.data.every((e: EventType) => e.emitted)).toBe(true);
    expect(no.body.data.every((e: EventType) => !e.emitted)).toBe(true);
    expect(yes.body.total + no.body.total).toBe(EVENT_NAMES.length);
    expect(yes.body.total).toBe(yes.body.data.length);
    const bad = await catalogue(org.key, '?emitted=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('validation_error');
    expect((await catalogue(org.key, '?page=2')).status).toBe(400);
  });

  it('needs read:webhook, and any scope of key has it (it holds no organization data)', async () => {
    const projectKey = (await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId })).key;
    expect((await catalogue(projectKey)).status).toBe(200);
    const lacking = await catalogue(await keyLacking(c, org, 'read:webhook'));
    expect(lacking.status).toBe(403);
    expect(lacking.body.message).toContain('read:webhook');
    expect((await c.api(undefined, 'GET', '/webhooks/event-types')).status).toBe(401);
    // The gateway answers this route itself, so it checks the key afresh: a revoked key is 401 at once.
    const revoked = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    expect((await catalogue(revoked.key)).status).toBe(200);
    await c.admin.revokeKey(revoked.id);
    expect((await catalogue(revoked.key)).status).toBe(401);
  });

  it('does not shadow GET /webhooks/:id, and other methods on its path answer as the :id routes do', async () => {
    expect((await c.api(org.key, 'GET', `/webhooks/${randomUUID()}`)).status).toBe(404);
    const del = await c.api(org.key, 'DELETE', '/webhooks/event-types');
    expect(del.status).toBe(404);
    expect(del.body.reason).toBe('not_found');
  });
});

describe('the catalogue against what the cluster emits', () => {
  it('every event on the domain-event topic is catalogued as emitted, with a payload its served schema accepts; every emitted name was seen', async () => {
    await everyEmittingPath(c, org, receiver.url);
    const served = new Map(((await catalogue()).body.data as EventType[]).map((e) => [e.name, e]));
    const onKafka = Object.keys(EMITTED_EVENTS).filter((n) => n !== 'webhook.test' && !Object.hasOwn(EMITTED_ELSEWHERE, n));
    await c.events.waitFor((e) => e.eventName === 'webhook.subscription.deleted');
    const events = await c.events.settle(() => true, 1000);
    const seen = new Set(events.map((e) => e.eventName));
    expect([...seen].sort()).toEqual(onKafka.sort());
    for (const e of events) {
      expectCatalogued(e);
      // The public ones: the served catalogue (what integrators read) says the same as the source.
      if (!(INTERNAL_EVENT_NAMES as readonly string[]).includes(e.eventName)) {
        const { internal: _internal, ...source } = EVENT_CATALOGUE.find((x) => x.name === e.eventName)!;
        expect(served.get(e.eventName)).toEqual(source);
      }
    }
  });

  it('webhook deliveries carry the same payloads: a real delivery and a webhook.test validate and verify', async () => {
    const created = await c.api(org.key, 'POST', '/webhooks', {
      destinationUrl: receiver.url,
      eventNames: ['entry.created', 'webhook.test'],
    });
    expect(created.status).toBe(201);
    const test = await c.api(org.key, 'POST', `/webhooks/${created.body.id}/test`);
    expect(test.body).not.toHaveProperty('deliveryError');
    await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      type: 'bug_report',
      title: 'Delivered',
      description: 'd',
    });
    const got = await receiver.waitFor(2, (r) =>
      ['webhook.test', 'entry.created'].includes((r.body as { eventName: string }).eventName),
    );
    for (const r of got) {
      verify(r.rawBody, r.headers, created.body.hmacSecret as string, { scheme: 'both' });
      expectCatalogued(r.body as { eventName: string; entityType: string; occurredAt: string; payload: unknown });
    }
    expect(got.map((r) => (r.body as { eventName: string }).eventName).sort()).toEqual(['entry.created', 'webhook.test']);
  });
});
