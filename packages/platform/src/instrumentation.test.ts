import { propagation, type Link, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRpcRequest, restoreCreationContext, startInstrumentation, tracingConfigured } from './instrumentation.ts';
import { CREATION_CONTEXT } from './telemetry.ts';

describe('whether a service starts the OpenTelemetry SDK', () => {
  it('is off unless the standard variables name an exporter or an OTLP endpoint', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_SERVICE_NAME: 'core', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
  });

  it('stays off when OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none says so, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('loads nothing when off', async () => {
    expect(await startInstrumentation('core', {})).toBe(false);
  });
});

describe('which HTTP requests make no server span of their own', () => {
  it('are Connect and gRPC calls, whose span the service server makes', () => {
    expect(isRpcRequest({ 'content-type': 'application/proto', 'connect-protocol-version': '1' })).toBe(true);
    expect(isRpcRequest({ 'content-type': 'application/connect+proto' })).toBe(true);
    expect(isRpcRequest({ 'content-type': 'application/grpc+proto' })).toBe(true);
    expect(isRpcRequest({ 'content-type': 'application/json', 'connect-protocol-version': '1' })).toBe(true);
    expect(isRpcRequest({ 'content-type': 'application/json' })).toBe(false);
    expect(isRpcRequest({})).toBe(false);
  });
});

describe("the Kafka producer hook (the relay's send span)", () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const sendSpanHeaders = {
    traceparent: '00-11111111111111111111111111111111-2222222222222222-01',
    'event-name': 'entry.created',
  };
  beforeAll(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
  afterAll(() => propagation.disable());

  const sendSpan = () => {
    const links: Link[] = [];
    return { links, span: { addLink: (l: Link) => links.push(l) } as unknown as Span };
  };

  it("puts the write's trace back in the message and links the send span to it", () => {
    const { links, span } = sendSpan();
    const message = { headers: { ...sendSpanHeaders }, [CREATION_CONTEXT]: { traceparent } };
    restoreCreationContext(span, { message });
    expect(message.headers).toEqual({ traceparent, 'event-name': 'entry.created' });
    expect(links.map((l) => l.context.spanId)).toEqual(['b7ad6b7169203331']);
  });

  it('leaves the send span in a message written outside any trace', () => {
    for (const creation of [undefined, null, {}, { traceparent: 'not a traceparent' }]) {
      const { links, span } = sendSpan();
      const message = { headers: { ...sendSpanHeaders }, [CREATION_CONTEXT]: creation };
      restoreCreationContext(span, { message });
      expect(message.headers).toEqual(sendSpanHeaders);
      expect(links).toEqual([]);
    }
  });
});
