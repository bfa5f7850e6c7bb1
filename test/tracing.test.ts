import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { initTelemetry } from '@cluster/platform';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

const exporter = new InMemorySpanExporter();
let c: TestCluster;
let org: SeededOrg;

beforeAll(async () => {
  initTelemetry('tests', { exporter });
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Tracing Org');
});
afterAll(async () => c?.stop());

describe('distributed tracing', () => {
  it("continues the caller's trace through the gateway, the core RPC and the Kafka message headers", async () => {
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    expect((await c.api(org.key, 'GET', '/me')).status).toBe(200); // the gateway now knows the key
    const res = await c.api(org.key, 'POST', '/projects', { name: 'traced', description: '' }, { traceparent });
    expect(res.status).toBe(201);

    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const names = spans.map((s) => s.name);
    expect(names).toContain('POST /api/v1/projects');
    expect(names).toContain('cluster.core.v1.ProjectService/CreateProject');
    // One round trip: a known key is not authenticated by a second RPC; the core checks it on the call itself.
    expect(names.filter((n) => n.startsWith('cluster.core.v1.'))).toEqual(['cluster.core.v1.ProjectService/CreateProject']);
    const gateway = spans.find((s) => s.name === 'POST /api/v1/projects')!;
    const create = spans.find((s) => s.name.endsWith('/CreateProject'))!;
    expect(create.parentSpanContext?.spanId).toBe(gateway.spanContext().spanId);
    expect(gateway.attributes['http.response.status_code']).toBe(201);

    // The event on Kafka carries the trace context of the write that produced it.
    const kafka = new Kafka({ brokers: c.brokers, logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `trace-${randomBytes(4).toString('hex')}` });
    await consumer.connect();
    await consumer.subscribe({ topic: `${c.topicPrefix}cluster.domain-events.v1`, fromBeginning: true });
    const header = await new Promise<string>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          const env = JSON.parse(message.value!.toString());
          if (env.entityId === res.body.id) resolve(String(message.headers?.traceparent));
        },
      });
    });
    await consumer.disconnect();
    expect(header.split('-')[1]).toBe(traceId);
  });

  it('starts a new trace when the caller sends none, and errors mark the span', async () => {
    exporter.reset();
    const res = await c.api(org.key, 'GET', '/projects/00000000-0000-0000-0000-000000000000');
    expect(res.status).toBe(404);
    const gateway = exporter.getFinishedSpans().find((s) => s.name === 'GET /api/v1/projects/:id');
    expect(gateway).toBeDefined();
    expect(gateway!.attributes['http.response.status_code']).toBe(404);
    const get = exporter.getFinishedSpans().find((s) => s.name.endsWith('/GetProject'))!;
    expect(get.spanContext().traceId).toBe(gateway!.spanContext().traceId);
    expect(get.status.code).toBe(2);
  });
});
