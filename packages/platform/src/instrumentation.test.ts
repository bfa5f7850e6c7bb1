import { describe, expect, it } from 'vitest';
import { startInstrumentation, tracingConfigured } from './instrumentation.ts';

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
