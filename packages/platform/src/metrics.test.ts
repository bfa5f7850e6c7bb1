import { Code } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { codeName, createMetrics } from './metrics.ts';

describe('metrics', () => {
  it('names RPC result codes as alerts and dashboards match them', () => {
    expect(codeName(Code.NotFound)).toBe('not_found');
    expect(codeName(Code.DeadlineExceeded)).toBe('deadline_exceeded');
    expect(codeName(Code.Internal)).toBe('internal');
  });

  it('keeps the standard names of the default Node metrics, told apart by the service label', async () => {
    const text = await createMetrics('core').registry.metrics();
    expect(text).toMatch(/^process_cpu_seconds_total\{service="core"\} /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{service="core"\} /m);
    expect(text).not.toContain('core_process_');
    expect(text).toContain('# TYPE core_rpc_requests_total counter');
  });
});
