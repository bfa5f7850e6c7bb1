import {
  context,
  propagation,
  trace,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export { SpanKind, SpanStatusCode, context, propagation, trace, type Span, type Context };

let provider: NodeTracerProvider | undefined;

/** Where spans go: a test's exporter, or an OTLP/HTTP endpoint (from the service's config). */
export interface TelemetryOptions {
  exporter?: SpanExporter;
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT); traces are sent to its `v1/traces`. */
  otlpEndpoint?: string;
  /** `service.name` of the spans (OTEL_SERVICE_NAME); default the service's own name. */
  serviceName?: string;
}

/** The traces URL of an OTLP base endpoint, as the OTel SDK derives it from OTEL_EXPORTER_OTLP_ENDPOINT. */
function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.endsWith('/') ? endpoint : `${endpoint}/`}v1/traces`;
}

/**
 * Traces for one process: W3C trace context propagated gateway -> Connect ->
 * core -> outbox -> Kafka headers -> delivery. Spans are exported over OTLP/HTTP
 * when an OTLP endpoint is given (the service's OTEL_EXPORTER_OTLP_ENDPOINT);
 * without it they still carry ids for propagation and log correlation. Call first
 * thing in a composition root; later calls in the same process (in-process test
 * clusters) keep the first provider.
 */
export function initTelemetry(service: string, opts: TelemetryOptions = {}): void {
  if (provider) return;
  const processors = opts.exporter
    ? [new SimpleSpanProcessor(opts.exporter)]
    : opts.otlpEndpoint
      ? [new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpTracesUrl(opts.otlpEndpoint) }))]
      : [];
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName ?? service }),
    spanProcessors: processors,
    // Nowhere to send spans: record none (their ids still propagate and reach the logs), which
    // saves building every span's attributes and events on each request (bench/README.md).
    ...(processors.length ? {} : { sampler: new AlwaysOffSampler() }),
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
}

/** Flushes and stops the exporter (last shutdown phase). */
export async function shutdownTelemetry(): Promise<void> {
  await provider?.forceFlush().catch(() => {});
}

export function tracer(service: string) {
  return trace.getTracer(service);
}

/** The active span's trace and span ids, for log lines (every line written inside a span carries both). */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && trace.isSpanContextValid(ctx) ? { traceId: ctx.traceId, spanId: ctx.spanId } : undefined;
}

/** Trace headers of the active context, to store beside work that continues elsewhere (outbox rows). */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

const recordGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (c) => Object.keys(c),
  get: (c, k) => {
    const v = c[k] ?? c[k.toLowerCase()];
    if (typeof v === 'string') return v;
    if (Buffer.isBuffer(v)) return v.toString();
    if (Array.isArray(v)) return v.map(String);
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return undefined;
  },
};

/** A context continued from headers (HTTP request, Kafka message, stored outbox headers). */
export function contextFrom(headers: Record<string, unknown> | undefined): Context {
  return propagation.extract(context.active(), headers ?? {}, recordGetter);
}

export const headersSetter: TextMapSetter<Headers> = { set: (h, k, v) => h.set(k, v) };
export const headersGetter: TextMapGetter<Headers> = {
  keys: (h) => [...h.keys()],
  get: (h, k) => h.get(k) ?? undefined,
};

/** Runs `fn` in a new span, ending it with the outcome. */
export async function inSpan<T>(
  service: string,
  name: string,
  opts: { kind?: SpanKind; parent?: Context; attributes?: Record<string, string | number | boolean> },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = opts.parent ?? context.active();
  const span = tracer(service).startSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}
