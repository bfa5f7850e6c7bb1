import { startReceiver, type Receiver } from './receiver.ts';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ExportedSpan {
  service: string;
  scope: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  links: { traceId: string; spanId: string }[];
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number };
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

const valueOf = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/**
 * An OTLP/HTTP collector of the test's own: a real HTTP server the services export their spans to
 * (`OTEL_EXPORTER_OTLP_ENDPOINT=collector.endpoint`, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`).
 */
export interface OtlpCollector {
  endpoint: string;
  /** Every span received so far. */
  spans(): ExportedSpan[];
  close(): Promise<void>;
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const receiver: Receiver = await startReceiver('');
  return {
    endpoint: receiver.url,
    spans: () =>
      receiver.received
        .filter((r) => r.path === '/v1/traces')
        .flatMap((r) =>
          ((r.body as ExportRequest).resourceSpans ?? []).flatMap((rs) => {
            const service = String(attributesOf(rs.resource?.attributes)['service.name']);
            return (rs.scopeSpans ?? []).flatMap((ss) =>
              (ss.spans ?? []).map((s) => ({
                service,
                scope: ss.scope?.name ?? '',
                name: s.name,
                kind: s.kind,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                attributes: attributesOf(s.attributes),
                statusCode: s.status?.code ?? 0,
                links: s.links ?? [],
              })),
            );
          }),
        ),
    close: () => receiver.close(),
  };
}
