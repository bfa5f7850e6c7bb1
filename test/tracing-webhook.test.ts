import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTelemetry } from '@cluster/platform';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';

// One API write followed into a webhook: the gateway's, the core's and the delivery service's
// spans share the caller's trace id, and the receiver's request carries a traceparent of it.
const exporter = new InMemorySpanExporter();
const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let receiver: Receiver;

beforeAll(async () => {
  initTelemetry('tests', { exporter });
  c = await startTestCluster();
  org = await c.seedOrg('Traced webhooks');
  receiver = await receivers.start();
  const hook = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
  expect(hook.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

describe('a trace from an API write to the webhook it causes', () => {
  it('reaches the delivery service and the receiver with the caller’s trace id', async () => {
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    const entry = await c.api(
      org.key,
      'POST',
      `/projects/${org.projectId}/entries`,
      { title: 'traced', description: 'end to end', type: 'feedback' },
      { traceparent },
    );
    expect(entry.status).toBe(201);
    const [delivered] = await receiver.waitFor(1, (r) => (r.body as { entityId?: string }).entityId === entry.body.id);
    const header = String(delivered.headers.traceparent);
    expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(header.split('-')[1]).toBe(traceId);

    // The receiver has the request before the sender has its answer: the delivery span ends a moment later.
    const spans = await until(
      async () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId),
      (found) => found.some((s) => s.name === 'webhook.deliver'),
      5_000,
    );
    const names = spans.map((s) => s.name);
    expect(names).toContain(`POST /api/v1/projects/:id/entries`);
    expect(names).toContain('cluster.core.v1.EntryService/CreateEntry');
    const deliver = spans.find((s) => s.name === 'webhook.deliver');
    expect(deliver, names.join(', ')).toBeDefined();
    // The receiver's traceparent names the delivery span as its parent.
    expect(header.split('-')[2]).toBe(deliver!.spanContext().spanId);
    expect(deliver!.attributes['http.response.status_code']).toBe(200);
  });
});
