// The OpenTelemetry Node SDK of a service process, with the maintained instrumentations of the
// libraries it runs on. A service's `main.ts` calls `startInstrumentation` and only then imports the
// service itself: an instrumentation patches a module as it loads, so nothing it instruments may load
// first. Keep this module's static imports to `node:` modules and the API (docs/observability.md).
import { register } from 'node:module';
import { ROOT_CONTEXT, propagation, trace, type Span } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { CREATION_CONTEXT } from './telemetry.ts';

/** Environment variables that ask for traces to be exported (anything else leaves the SDK off). */
const EXPORT_SETTINGS = ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];

/**
 * Whether the environment configures tracing: an exporter or an OTLP endpoint is set, and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` turns it off. Off by default, locally and in
 * the tests, so that a request pays nothing for tracing it does not export.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.split(',').some((e) => e.trim() === 'none')) return false;
  return EXPORT_SETTINGS.some((name) => env[name]?.trim());
}

/**
 * The kafkajs instrumentation parents each message's send span on the sender's active context and
 * injects that span into the message's headers. The outbox relay sends, in one request, messages
 * written by many API calls before: the context that belongs in each message is the one it was
 * written in (its creation context, stored with the outbox row, put on the message under
 * CREATION_CONTEXT). The producer hook puts it back in the headers and links the send span to it,
 * as the messaging semantic conventions describe.
 */
export function restoreCreationContext(span: Span, { message }: { message: { headers?: Record<string, unknown> } }): void {
  const creation = (message as { [CREATION_CONTEXT]?: Record<string, string> | null })[CREATION_CONTEXT];
  const created = creation && trace.getSpanContext(propagation.extract(ROOT_CONTEXT, creation));
  if (!creation || !created || !message.headers) return;
  span.addLink({ context: created });
  for (const name of ['traceparent', 'tracestate'])
    if (creation[name]) message.headers[name] = creation[name];
    else delete message.headers[name];
}

/** Paths answered for probes and scrapes: no span for them (they arrive every few seconds). */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * A Connect or gRPC call to a backend: its server span is the RPC span the service server makes
 * (server.ts, named `Service/Method`), so the HTTP request under it makes none.
 */
export function isRpcRequest(headers: Record<string, string | string[] | undefined>): boolean {
  const type = String(headers['content-type'] ?? '');
  return /^application\/(proto|connect\+|grpc)/.test(type) || headers['connect-protocol-version'] !== undefined;
}

async function instrumentations(): Promise<Instrumentation[]> {
  const [
    { HttpInstrumentation },
    { UndiciInstrumentation },
    { KoaInstrumentation },
    { PgInstrumentation },
    { KafkaJsInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/instrumentation-koa'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-kafkajs'),
  ]);
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]) || isRpcRequest(req.headers),
    }),
    // Calls to a backend (rpc.ts) and outbound webhook POSTs (delivery): a client span under the caller's span,
    // and its traceparent in the request.
    new UndiciInstrumentation({ requireParentforSpans: true }),
    new KoaInstrumentation(),
    // Queries of a traced request or message; the background loops' polling queries make no traces.
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    new KafkaJsInstrumentation({ producerHook: restoreCreationContext }),
  ];
}

/**
 * Starts the SDK when the `OTEL_*` variables configure tracing (`tracingConfigured`); otherwise does
 * nothing, and the OpenTelemetry API stays a no-op. Traces go where the standard variables say
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_TRACES_EXPORTER`, `OTEL_TRACES_SAMPLER`, ...); the service
 * name is `OTEL_SERVICE_NAME`, else the service's own. Metrics stay Prometheus' (`/metrics`) unless
 * `OTEL_METRICS_EXPORTER` asks for more; logs stay JSON lines on stdout, with trace and span ids.
 */
export async function startInstrumentation(service: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!tracingConfigured(env)) return false;
  // ES modules are wrapped by import-in-the-middle's loader hook, for the modules the instrumentations
  // name only (not every module the service imports); CommonJS ones by require-in-the-middle.
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || service,
    instrumentations: await instrumentations(),
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    logRecordProcessors: [],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  return true;
}
