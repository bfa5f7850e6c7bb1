import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpCollector, type ExportedSpan, type OtlpCollector } from './support/otlp.ts';
import { until } from './support/poll.ts';
import { startProcessCluster, type ProcessCluster } from './support/process-cluster.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';

// Traces as an SRE gets them: the services run as processes with the OpenTelemetry SDK and its
// instrumentations (switched on by the standard OTEL_* variables only) and export over OTLP/HTTP to a
// collector of the test's own. One API write is followed from the gateway through the core, Kafka and
// the delivery service into the receiver of the webhook it causes.
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;

const receivers = createReceivers();
let collector: OtlpCollector;
let cluster: ProcessCluster;
let receiver: Receiver;
let key: string;
let projectId: string;

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${cluster.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The spans of a trace, once `done` says every expected one has arrived (the exporters batch). */
function trace(traceId: string, done: (spans: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
  return until(async () => collector.spans().filter((s) => s.traceId === traceId), done, 20_000);
}

/** The first exported span `match` accepts, once it has arrived (undefined after 20 s). */
function firstSpan(match: (s: ExportedSpan) => boolean): Promise<ExportedSpan | undefined> {
  return until(
    async () => collector.spans().find(match),
    (found) => found !== undefined,
    20_000,
  );
}

/** The gateway's server span named `name`. */
const gatewayServerSpan = (name: string) => firstSpan((s) => s.service === 'gateway' && s.kind === SERVER && s.name === name);

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
};

beforeAll(async () => {
  collector = await startOtlpCollector();
  cluster = await startProcessCluster('trace', {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
      WEBHOOK_CLOCK_SKEW_MS: '0',
    },
    // The gateway's access log line of each request, to find the trace ids in it.
    perService: { gateway: { LOG_LEVEL: 'info' } },
  });
  ({ key } = await cluster.newOrg('Traced'));
  const project = await api('POST', '/projects', { name: 'traced', description: '' });
  expect(project.status).toBe(201);
  projectId = String(project.body.id);
  receiver = await receivers.start();
  const hook = await api('POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
  expect(hook.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await receivers.closeAll();
  await cluster?.stop();
  await collector?.close();
});

describe('a trace from an API write to the webhook it causes', () => {
  it('holds spans of the gateway, the core and the delivery service under the caller’s trace id, and the receiver joins it', async () => {
    const { traceId, traceparent } = newTraceparent();
    const entry = await api(
      'POST',
      `/projects/${projectId}/entries`,
      { title: 'traced', description: 'end to end', type: 'feedback' },
      { traceparent },
    );
    expect(entry.status).toBe(201);

    // The receiver's request carries a traceparent of the same trace.
    const [delivered] = await receiver.waitFor(1, (r) => (r.body as { entityId?: string }).entityId === entry.body.id);
    const header = String(delivered.headers.traceparent);
    expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(header.split('-')[1]).toBe(traceId);

    // Each service's exporter batches on its own: wait for the spans of all three, not only the last one made.
    const spans = await trace(
      traceId,
      (found) =>
        found.some((s) => s.spanId === header.split('-')[2]) &&
        found.some((s) => s.service === 'gateway' && s.kind === SERVER) &&
        found.some((s) => s.service === 'core' && s.name === 'cluster.core.v1.EntryService/CreateEntry') &&
        found.some((s) => s.service === 'delivery' && s.name === 'webhook.deliver'),
    );
    const listing = spans.map((s) => `${s.service}: ${s.name}`).join('\n');
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    // Gateway: the http instrumentation's server span, named by the route template, under the caller's span.
    const server = spans.find((s) => s.service === 'gateway' && s.kind === SERVER);
    expect(server, listing).toBeDefined();
    expect(server!.name).toBe('POST /api/v1/projects/:id/entries');
    expect(server!.attributes['http.route']).toBe('/api/v1/projects/:id/entries');
    expect(server!.attributes['http.response.status_code']).toBe(201);
    expect(server!.parentSpanId).toBe(traceparent.split('-')[2]);
    // The Koa instrumentation's middleware spans, named after the middleware.
    expect(
      spans.some((s) => s.service === 'gateway' && s.name === 'middleware - v1Pipeline'),
      listing,
    ).toBe(true);

    // Core: the RPC's span is the one server span of the call (no HTTP server span beside it), a child of the
    // gateway's client span of that call (the undici instrumentation's); the pg queries are inside it.
    const rpc = spans.find((s) => s.service === 'core' && s.name === 'cluster.core.v1.EntryService/CreateEntry');
    expect(rpc, listing).toBeDefined();
    expect(byId.get(rpc!.parentSpanId), listing).toMatchObject({ service: 'gateway', kind: CLIENT, name: 'POST' });
    expect(
      spans.filter((s) => s.service === 'core' && s.kind === SERVER).map((s) => s.name),
      listing,
    ).not.toContain('POST');
    const queries = spans.filter((s) => s.service === 'core' && s.scope === '@opentelemetry/instrumentation-pg');
    expect(queries.length, listing).toBeGreaterThan(0);
    for (const q of queries) expect(byId.get(q.parentSpanId)?.service, q.name).toBe('core');
    expect(queries.some((q) => q.parentSpanId === rpc!.spanId)).toBe(true);

    // Delivery: the attempt's span continues the trace stored with the event; under it the undici
    // instrumentation's client span is the parent the receiver was given.
    const attempt = spans.find((s) => s.service === 'delivery' && s.name === 'webhook.deliver');
    expect(attempt, listing).toBeDefined();
    const post = byId.get(header.split('-')[2]);
    expect(post, listing).toMatchObject({ service: 'delivery', kind: CLIENT, parentSpanId: attempt!.spanId });
    expect(post!.attributes['http.response.status_code']).toBe(200);

    // Every span of the trace hangs off another span of it (or off the caller's).
    for (const s of spans)
      expect([...byId.keys(), traceparent.split('-')[2]], `${s.service}: ${s.name}`).toContain(s.parentSpanId);

    // The gateway's access log line of the request carries the trace and its span ids.
    const logged = cluster.gateway
      .tail()
      .split('\n')
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return {};
        }
      })
      .find((l) => l.msg === 'request' && l.method === 'POST' && l.traceId === traceId);
    expect(logged, cluster.gateway.tail()).toBeDefined();
    expect(byId.has(String(logged!.spanId))).toBe(true);
  });

  it('puts the write’s trace on the Kafka message, and links the relay’s send span to it', async () => {
    const { traceId, traceparent } = newTraceparent();
    const created = await api('POST', '/projects', { name: 'kafka traced', description: '' }, { traceparent });
    expect(created.status).toBe(201);

    const kafka = new Kafka({ brokers: (process.env.KAFKA_BROKERS ?? '').split(','), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `trace-${randomBytes(4).toString('hex')}` });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: `${cluster.topicPrefix}cluster.domain-events.v1`, fromBeginning: true });
      const header = await new Promise<string>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            // The key is the entity id (the value is the event's data: a CloudEvent in binary mode).
            if (message.key?.toString() === created.body.id) resolve(String(message.headers?.traceparent));
          },
        });
      });
      expect(header.split('-')[1]).toBe(traceId);
      const spans = await trace(traceId, (found) => found.some((s) => s.spanId === header.split('-')[2]));
      // The message's context is the core's, from the write (not the relay's send span)...
      expect(spans.find((s) => s.spanId === header.split('-')[2])?.service).toBe('core');
      // ...and the relay's send span, a trace of its own, links to it.
      const send = await firstSpan((s) => s.kind === PRODUCER && s.links.some((l) => l.spanId === header.split('-')[2]));
      expect(send).toMatchObject({ service: 'core', name: `send ${cluster.topicPrefix}cluster.domain-events.v1` });
    } finally {
      await consumer.disconnect();
    }
  });

  it('marks the span of a failed call, and starts a trace when the caller sends none', async () => {
    const missing = await api('GET', '/projects/00000000-0000-0000-0000-000000000000');
    expect(missing.status).toBe(404);
    const server = await gatewayServerSpan('GET /api/v1/projects/:id');
    expect(server!.attributes['http.response.status_code']).toBe(404);
    const spans = await trace(server!.traceId, (found) => found.some((s) => s.name.endsWith('/GetProject')));
    expect(spans.find((s) => s.name.endsWith('/GetProject'))?.statusCode).toBe(2);
  });

  it('names the spans of the other endpoints by their path templates', async () => {
    const gatewayOrigin = cluster.baseUrl.replace('/api/v1', '');
    const hook = await fetch(`${gatewayOrigin}/hooks/github/${randomBytes(8).toString('hex')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(hook.status).toBeGreaterThanOrEqual(400);
    const server = await gatewayServerSpan('POST /hooks/github/:organizationId');
    expect(server?.attributes['http.route']).toBe('/hooks/github/:organizationId');

    // The tool-protocol endpoint writes its answer itself, before the middleware around it resumes.
    const mcp = await fetch(`${gatewayOrigin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tracing-test', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(200);
    await mcp.text();
    const mcpSpan = await gatewayServerSpan('POST /mcp');
    expect(mcpSpan?.attributes['http.route']).toBe('/mcp');
  });

  it('makes no spans for probes and scrapes', async () => {
    for (const path of ['/healthz', '/readyz'])
      expect((await fetch(`http://127.0.0.1:${cluster.core.port}${path}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(
      collector.spans().filter((s) => /healthz|readyz|metrics/.test(`${s.name} ${String(s.attributes['url.path'] ?? '')}`)),
    ).toEqual([]);
  });
});
