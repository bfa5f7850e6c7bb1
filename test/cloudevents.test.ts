import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka as CloudEventsKafka, type CloudEvent, type KafkaMessage } from 'cloudevents';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { EMITTED_EVENTS, eventDataSchema, eventTypeNamed, type EventEnvelope } from '@cluster/contracts';
import { readPublishedSchemas } from '../scripts/lib/event-schemas.ts';
import { catalogueAjv } from './support/catalogue.ts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { EMITTED_ELSEWHERE, everyEmittingPath } from './support/emitting-paths.ts';
import { sql } from './support/people.ts';
import { until } from './support/poll.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

// Domain events on Kafka are CloudEvents (binary content mode, docs/decisions.md). This reads the
// real messages of a real cluster with the `cloudevents` SDK's Kafka binding, an implementation
// independent of ours, and validates every event's data against the schema its `dataschema` names,
// loaded from the published files (docs/events/schemas) by `$id`. It also runs the transition:
// the real delivery service fans out, alike, a CloudEvent, an envelope from a producer of before the
// move, and an envelope row an older release left in the outbox.

let c: TestCluster;
let org: SeededOrg;
let receiver: Receiver;
let raw: RawLog;

beforeAll(async () => {
  c = await startTestCluster({ env: { WEBHOOK_POLL_MS: '100' } });
  org = await c.seedOrg('CloudEvents Org');
  receiver = await startReceiver();
  raw = await rawLog(c.brokers, `${c.topicPrefix}cluster.domain-events.v1`);
});
afterAll(async () => {
  await raw?.stop();
  await receiver?.close();
  await c?.stop();
});

/** Every message of a topic as the SDK's KafkaMessage: string headers, the value as text. */
interface RawLog {
  all(): KafkaMessage<string>[];
  stop(): Promise<void>;
}

async function rawLog(brokers: string[], topic: string): Promise<RawLog> {
  const kafka = new Kafka({ brokers, clientId: 'test-cloudevents', logLevel: logLevel.NOTHING });
  const consumer: Consumer = kafka.consumer({ groupId: `test-ce-${randomBytes(6).toString('hex')}` });
  const seen: KafkaMessage<string>[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = v.toString();
      const value = message.value?.toString() ?? '';
      // The SDK's Message has a transport-neutral `body`; its Kafka binding reads `value`.
      seen.push({ key: message.key?.toString() ?? '', value, body: value, headers, timestamp: message.timestamp });
    },
  });
  return { all: () => [...seen], stop: () => consumer.disconnect() };
}

/** The published schemas, by `$id` (the dataschema of their events). */
function publishedValidators() {
  const ajv = catalogueAjv();
  for (const text of readPublishedSchemas().values()) ajv.addSchema(JSON.parse(text) as object);
  return ajv;
}

describe('domain events as CloudEvents on Kafka', () => {
  it('every message the cluster publishes is a CloudEvent the SDK reads, with every attribute, and data its published schema accepts', async () => {
    await everyEmittingPath(c, org, receiver.url);
    const isLast = (m: KafkaMessage<string>) =>
      m.headers.ce_type === 'webhook.subscription.deleted' && m.headers.ce_source === `/organizations/${org.orgId}`;
    expect(await until(async () => raw.all().some(isLast), Boolean, 30_000), 'webhook.subscription.deleted on Kafka').toBe(true);
    // The relays publish in commit order per schema; the core's and the delivery service's may still be behind each other.
    await c.flushOutbox();
    await c.events.settle(() => true, 1000);
    const ajv = publishedValidators();
    const types = new Set<string>();
    for (const message of raw.all()) {
      const event = CloudEventsKafka.toEvent(message) as CloudEvent<Record<string, unknown>>;
      expect(Array.isArray(event), 'one event per message').toBe(false);
      // The SDK's own check of the CloudEvents spec (required attributes, their types, extension names).
      expect(event.validate()).toBe(true);
      const entry = eventTypeNamed(event.type);
      expect(entry?.emitted, event.type).toBe(true);
      types.add(event.type);
      expect(event).toMatchObject({
        specversion: '1.0',
        source: `/organizations/${org.orgId}`,
        subject: message.key,
        partitionkey: message.key,
        datacontenttype: 'application/json',
        dataschema: eventDataSchema(event.type),
        entitytype: entry!.entityType,
      });
      expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(event.time).toBe(event.data!.occurredAt);
      const validate = ajv.getSchema(event.dataschema!);
      expect(validate, `a published schema with $id ${event.dataschema}`).toBeDefined();
      expect(validate!(event.data) ? [] : validate!.errors, `${event.type} data against ${event.dataschema}`).toEqual([]);
    }
    const onKafka = Object.keys(EMITTED_EVENTS).filter((n) => n !== 'webhook.test' && !Object.hasOwn(EMITTED_ELSEWHERE, n));
    expect([...types].sort()).toEqual(onKafka.sort());
  });

  it('the delivery service fans out a CloudEvent, an old producer’s envelope and an old outbox row alike', async () => {
    const tenant = await c.seedOrg('Transition Org');
    const sub = await c.api(tenant.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
    expect(sub.status).toBe(201);
    const envelope = (title: string): EventEnvelope => {
      const entityId = randomUUID();
      const occurredAt = new Date(Date.now() + 1000).toISOString();
      return {
        id: randomUUID(),
        eventName: 'entry.created',
        schemaVersion: 1,
        entityType: 'entry',
        entityId,
        occurredAt,
        actorUserId: tenant.adminId,
        organizationId: tenant.orgId,
        projectId: tenant.projectId,
        payload: { entryId: entityId, projectId: tenant.projectId, title, type: 'bug_report', status: 'open', occurredAt },
      };
    };
    // 1. A producer of before the move (a relay of the old release during a rolling deploy): the envelope as the value.
    const old = envelope('from an old producer');
    const producer = new Kafka({ brokers: c.brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    try {
      await producer.send({
        topic: `${c.topicPrefix}cluster.domain-events.v1`,
        messages: [
          { key: old.entityId, value: JSON.stringify(old), headers: { 'event-name': old.eventName, 'event-id': old.id } },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    // 2. A row the old release wrote to the outbox and did not publish: the relay of this one publishes it.
    const row = envelope('from an old outbox row');
    await sql(c, `INSERT INTO core.outbox ("eventId", topic, key, envelope, headers) VALUES ($1, $2, $3, $4, $5)`, [
      row.id,
      'cluster.domain-events.v1',
      row.entityId,
      JSON.stringify(row),
      JSON.stringify({}),
    ]);
    await c.flushOutbox();
    // 3. A write through the API now: a CloudEvent.
    const created = await c.api(tenant.key, 'POST', `/projects/${tenant.projectId}/entries`, {
      type: 'bug_report',
      title: 'from the API',
      description: 'd',
    });
    expect(created.status).toBe(201);

    const ids = [old.entityId, row.entityId, created.body.id as string];
    const got = await receiver.waitFor(3, (r) => ids.includes((r.body as { entityId?: string }).entityId ?? ''));
    for (const r of got) {
      const body = r.body as Record<string, unknown>;
      // The same webhook envelope, whatever shape the event came in: the spec's eight fields, in order.
      expect(Object.keys(body)).toEqual([
        'id',
        'eventName',
        'schemaVersion',
        'entityType',
        'entityId',
        'occurredAt',
        'actorUserId',
        'payload',
      ]);
      expect(body).toMatchObject({ eventName: 'entry.created', entityType: 'entry', actorUserId: tenant.adminId });
    }
    expect(got.map((r) => (r.body as { entityId: string }).entityId).sort()).toEqual([...ids].sort());
    // The old row went out as a CloudEvent; the old producer's message stayed an envelope, and the delivery service counted both shapes.
    const published = raw.all().find((m) => m.key === row.entityId);
    expect(published?.headers).toMatchObject({
      ce_id: row.id,
      ce_type: 'entry.created',
      ce_source: `/organizations/${tenant.orgId}`,
    });
    expect(raw.all().find((m) => m.key === old.entityId)?.headers.ce_id).toBeUndefined();
    const metrics = await (await fetch(`http://127.0.0.1:${c.ports.delivery}/metrics`)).text();
    const consumed = metrics.split('\n').filter((l) => l.startsWith('delivery_domain_events_consumed_total{'));
    expect(consumed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^delivery_domain_events_consumed_total\{format="envelope",service="delivery"\} [1-9]/),
        expect.stringMatching(/^delivery_domain_events_consumed_total\{format="cloudevents-binary",service="delivery"\} [1-9]/),
      ]),
    );
    expect(metrics).toMatch(/^delivery_webhook_poison_messages_total(\{[^}]*\})? 0$/m);
  });
});
