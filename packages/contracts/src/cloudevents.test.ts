import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventFromKafkaMessage, eventMessageFormat, toCloudEvent, toKafkaBinary } from './cloudevents.ts';
import type { EventEnvelope } from './events.ts';

const envelope = (over: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: randomUUID(),
  eventName: 'entry.created',
  schemaVersion: 1,
  entityType: 'entry',
  entityId: randomUUID(),
  occurredAt: '2026-11-26T10:00:00.000Z',
  actorUserId: randomUUID(),
  organizationId: randomUUID(),
  projectId: randomUUID(),
  payload: { title: 'Crash', occurredAt: '2026-11-26T10:00:00.000Z' },
  ...over,
});
const buffers = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)]));

describe('domain events as CloudEvents (Kafka binary mode)', () => {
  it('maps the envelope to the attributes, the data to the value, and keeps the transition headers', () => {
    const env = envelope();
    const { headers, value } = toKafkaBinary(env);
    expect(headers).toEqual({
      'content-type': 'application/json',
      ce_specversion: '1.0',
      ce_id: env.id,
      ce_source: `/organizations/${env.organizationId}`,
      ce_type: 'entry.created',
      ce_time: env.occurredAt,
      ce_subject: env.entityId,
      ce_dataschema: 'urn:cluster:event-schema:entry.created:v1',
      ce_entitytype: 'entry',
      ce_partitionkey: env.entityId,
      ce_projectid: env.projectId,
      ce_actoruserid: env.actorUserId,
      'event-name': 'entry.created',
      'event-id': env.id,
    });
    expect(JSON.parse(value)).toEqual(env.payload);
  });

  it('leaves out the attributes of null fields (an attribute cannot be null), and reads them back as null', () => {
    const env = envelope({ actorUserId: null, projectId: null });
    const ce = toCloudEvent(env);
    expect(ce).not.toHaveProperty('actoruserid');
    expect(ce).not.toHaveProperty('projectid');
    const { headers, value } = toKafkaBinary(env);
    expect(eventFromKafkaMessage(buffers(headers), Buffer.from(value))).toEqual(env);
  });

  it('reads back the envelope of a binary message, a structured one, and the old envelope', () => {
    const env = envelope();
    const { headers, value } = toKafkaBinary(env);
    expect(eventMessageFormat(buffers(headers))).toBe('cloudevents-binary');
    expect(eventFromKafkaMessage(buffers(headers), Buffer.from(value))).toEqual(env);

    const structured = { 'content-type': Buffer.from('application/cloudevents+json; charset=utf-8') };
    expect(eventMessageFormat(structured)).toBe('cloudevents-structured');
    expect(eventFromKafkaMessage(structured, JSON.stringify(toCloudEvent(env)))).toEqual(env);

    const old = { 'event-name': Buffer.from(env.eventName), 'event-id': Buffer.from(env.id) };
    expect(eventMessageFormat(old)).toBe('envelope');
    expect(eventFromKafkaMessage(old, Buffer.from(JSON.stringify(env)))).toEqual(env);
  });

  it('refuses what is neither: not JSON, a CloudEvent without its domain attributes, a value that is no object', () => {
    const { headers, value } = toKafkaBinary(envelope());
    expect(() => eventFromKafkaMessage(buffers(headers), Buffer.from('{'))).toThrow();
    const { ce_subject: _subject, ...noSubject } = headers;
    expect(() => eventFromKafkaMessage(buffers(noSubject), Buffer.from(value))).toThrow(/subject/);
    expect(() => eventFromKafkaMessage(buffers({ ...headers, ce_source: 'core' }), Buffer.from(value))).toThrow(/source/);
    expect(() => eventFromKafkaMessage(buffers(headers), Buffer.from('[1]'))).toThrow();
    expect(() => eventFromKafkaMessage({}, Buffer.from('"text"'))).toThrow();
  });
});
