import { describe, expect, it } from 'vitest';
import { LOGICAL_TOPICS } from '@cluster/kafka';
import { chunksBySize, encodeRow } from './publisher.ts';

const msg = (n: number, bytes: number) => ({ key: `k${n}`, value: 'x'.repeat(bytes), headers: {} });

describe('chunksBySize', () => {
  it('keeps the order and splits runs at the byte limit', () => {
    const chunks = chunksBySize([msg(1, 400), msg(2, 400), msg(3, 400)], 1000);
    expect(chunks.map((c) => c.map((m) => m.key))).toEqual([['k1', 'k2'], ['k3']]);
  });

  it('puts a message larger than the limit in a run of its own', () => {
    const chunks = chunksBySize([msg(1, 10), msg(2, 5000), msg(3, 10)], 1000);
    expect(chunks.map((c) => c.map((m) => m.key))).toEqual([['k1'], ['k2'], ['k3']]);
  });
});

describe('encodeRow', () => {
  const envelope = {
    id: '6f1c3c3e-0d7e-4f43-9d55-0b1f0b7c2a11',
    eventName: 'entry.created',
    schemaVersion: 1,
    entityType: 'entry',
    entityId: '0b5b7a5e-3f1f-4a53-8c5e-9d7f2f3c1e22',
    occurredAt: '2026-11-26T10:00:00.000Z',
    actorUserId: null,
    organizationId: '9a0e6f3d-2b4c-4d8e-a1f2-3c4d5e6f7a88',
    projectId: null,
    payload: { title: 'T', occurredAt: '2026-11-26T10:00:00.000Z' },
  };
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('publishes a domain event as a CloudEvent in binary mode, its data as the value, keeping the trace headers', () => {
    const { headers, value } = encodeRow({
      topic: LOGICAL_TOPICS.domainEvents,
      key: envelope.entityId,
      envelope,
      headers: { traceparent },
    });
    expect(JSON.parse(value)).toEqual(envelope.payload);
    expect(headers).toMatchObject({
      traceparent,
      'content-type': 'application/json',
      ce_specversion: '1.0',
      ce_id: envelope.id,
      ce_type: 'entry.created',
      ce_source: `/organizations/${envelope.organizationId}`,
      ce_subject: envelope.entityId,
      'event-name': 'entry.created',
    });
    expect(headers).not.toHaveProperty('ce_actoruserid');
  });

  it('keeps other topics (dead letters) as JSON values with event-name and event-id', () => {
    const value = { id: 'd1', eventName: 'entry.created', lastError: null };
    const out = encodeRow({ topic: LOGICAL_TOPICS.deliveryDeadLetter, key: 's1', envelope: value, headers: null });
    expect(JSON.parse(out.value)).toEqual(value);
    expect(out.headers).toEqual({ 'event-name': 'entry.created', 'event-id': 'd1' });
  });
});
