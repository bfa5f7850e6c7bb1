import {
  ROOT_CONTEXT,
  context,
  propagation,
  trace,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { RPCType, getRPCMetadata } from '@opentelemetry/core';

export { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Span, type Context };

// Traces are the OpenTelemetry SDK's, started by each service's main.ts before the service loads
// (instrumentation.ts) when the OTEL_* variables configure it; otherwise the API is a no-op and the
// helpers below cost next to nothing. W3C trace context flows gateway -> Connect -> core -> outbox
// row -> Kafka headers -> delivery -> the webhook's own traceparent (docs/observability.md).

/** Flushes the spans not yet exported (last shutdown phase); nothing when tracing is off. */
export async function shutdownTelemetry(): Promise<void> {
  const global = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const provider = (global.getDelegate?.() ?? global) as { forceFlush?: () => Promise<void> };
  await provider.forceFlush?.().catch(() => {});
}

/**
 * Names the current request's HTTP server span by its route template (`GET /api/v1/projects/:id`), the
 * way the http instrumentation reads it when the answer is sent; nothing when tracing is off.
 */
export function setHttpRoute(route: string): void {
  const rpc = getRPCMetadata(context.active());
  if (rpc?.type === RPCType.HTTP) rpc.route = route;
}

/**
 * Where a message written to the outbox carries its creation context (the trace of the write) to the
 * relay's Kafka producer; `Symbol.for`, so the same symbol in every bundle (instrumentation.ts).
 */
export const CREATION_CONTEXT = Symbol.for('cluster.messaging.creation-context');

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
