import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Parser } from '@asyncapi/parser';
import { topicNames } from '@cluster/kafka';

const doc = readFileSync(path.resolve(import.meta.dirname, '..', 'docs', 'asyncapi.yaml'), 'utf8');

describe('AsyncAPI document of the Kafka topics', () => {
  it('is a valid AsyncAPI 3 document', async () => {
    const { document, diagnostics } = await new Parser().parse(doc);
    // Severity 0 is DiagnosticSeverity.Error (of the parser's own copy of @stoplight/types); warnings are allowed.
    const errors = diagnostics.filter((d) => Number(d.severity) === 0);
    expect(errors.map((e) => `${e.path.join('.')}: ${e.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('documents the trace context and the dead-letter headers, and a server for any deployment', async () => {
    const { document } = await new Parser().parse(doc);
    const envelope = document!.components().messages().get('EventEnvelope')!.headers()!.json<{ properties: object }>();
    expect(Object.keys(envelope.properties)).toEqual(['event-name', 'event-id', 'traceparent', 'tracestate']);
    const deadLetter = document!.components().messages().get('DeadLetter')!.headers()!.json<{ properties: object }>();
    expect(Object.keys(deadLetter.properties)).toEqual(['event-name', 'event-id', 'traceparent', 'tracestate']);
    const cluster = document!.servers().get('cluster')!;
    expect(cluster.variables().get('bootstrap')?.defaultValue()).toBe('kafka-bootstrap.kafka.svc:9092');
  });

  it('names the topics the services really use', async () => {
    const { document } = await new Parser().parse(doc);
    const addresses = document!
      .channels()
      .all()
      .map((ch) => ch.address());
    const topics = topicNames('');
    expect(addresses.sort()).toEqual([topics.domainEvents, topics.deliveryDeadLetter].sort());
  });
});
