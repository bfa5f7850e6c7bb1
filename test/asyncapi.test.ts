import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Parser } from '@asyncapi/parser';
import { toKafkaBinary, type EventEnvelope } from '@cluster/contracts';
import { topicNames } from '@cluster/kafka';

const source = path.resolve(import.meta.dirname, '..', 'docs', 'asyncapi.yaml');
const doc = readFileSync(source, 'utf8');
// The per-event messages' payloads are $refs to the published schemas (events/schemas/*.json), relative to the document.
// Parsed once: resolving and validating the whole document takes seconds.
let parsed: ReturnType<Parser['parse']> | undefined;
const parse = () => (parsed ??= new Parser().parse(doc, { source }));

const sampleEnvelope = (): EventEnvelope => ({
  id: crypto.randomUUID(),
  eventName: 'entry.created',
  schemaVersion: 1,
  entityType: 'entry',
  entityId: crypto.randomUUID(),
  occurredAt: new Date().toISOString(),
  actorUserId: crypto.randomUUID(),
  organizationId: crypto.randomUUID(),
  projectId: crypto.randomUUID(),
  payload: {},
});

describe('AsyncAPI document of the Kafka topics', () => {
  it('is a valid AsyncAPI 3 document', async () => {
    const { document, diagnostics } = await parse();
    // Severity 0 is DiagnosticSeverity.Error (of the parser's own copy of @stoplight/types); warnings are allowed.
    const errors = diagnostics.filter((d) => Number(d.severity) === 0);
    expect(errors.map((e) => `${e.path.join('.')}: ${e.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('documents the trace context and the dead-letter headers, and a server for any deployment', async () => {
    const { document } = await parse();
    const cloudEvent = document!
      .components()
      .messages()
      .get('CloudEvent')!
      .headers()!
      .json<{ properties: object; required: string[] }>();
    expect(Object.keys(cloudEvent.properties)).toEqual(expect.arrayContaining(['ce_id', 'ce_type', 'traceparent', 'tracestate']));
    // The headers every message has (toKafkaBinary) are the required ones, besides the transition's event-name and event-id.
    expect(cloudEvent.required.sort()).toEqual(
      Object.keys(toKafkaBinary(sampleEnvelope()).headers)
        .filter((h) => !['event-name', 'event-id', 'ce_projectid', 'ce_actoruserid'].includes(h))
        .sort(),
    );
    const envelope = document!.components().messages().get('EventEnvelope')!.headers()!.json<{ properties: object }>();
    expect(Object.keys(envelope.properties)).toEqual(['event-name', 'event-id', 'traceparent', 'tracestate']);
    const deadLetter = document!.components().messages().get('DeadLetter')!.headers()!.json<{ properties: object }>();
    expect(Object.keys(deadLetter.properties)).toEqual(['event-name', 'event-id', 'traceparent', 'tracestate']);
    const cluster = document!.servers().get('cluster')!;
    expect(cluster.variables().get('bootstrap')?.defaultValue()).toBe('kafka-bootstrap.kafka.svc:9092');
  });

  it('gives each event type its published data schema as the payload, resolved from events/schemas', async () => {
    const { document } = await parse();
    const message = document!.components().messages().get('event.entry.created')!;
    // A multi-format schema object: the draft-07 schema under `schema`.
    const payload = message.payload()!.json<{ schema: { $id: string; required: string[] } }>().schema;
    expect(payload.$id).toBe('urn:cluster:event-schema:entry.created:v1');
    expect(payload.required).toContain('entryId');
  });

  it('names the topics the services really use', async () => {
    const { document } = await parse();
    const addresses = document!
      .channels()
      .all()
      .map((ch) => ch.address());
    const topics = topicNames('');
    expect(addresses.sort()).toEqual([topics.domainEvents, topics.deliveryDeadLetter].sort());
  });
});
