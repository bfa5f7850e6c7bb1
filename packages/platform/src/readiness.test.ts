import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';
import { createReadiness } from './readiness.ts';

const gauge = async (metrics: ReturnType<typeof createMetrics>) =>
  (await metrics.registry.getSingleMetric('svc_dependency_up')!.get()).values.map((v) => [v.labels.dependency, v.value]);

describe('createReadiness', () => {
  it('is ready with every required check passing, whatever the others say, and exports each as a gauge', async () => {
    const metrics = createMetrics('svc');
    const r = createReadiness({
      checks: { postgres: async () => true, kafka: async () => false },
      required: ['postgres'],
      metrics,
      refreshMs: 0,
    });
    expect(await r.probe()).toEqual({ ready: true, checks: { postgres: true, kafka: false } });
    expect(await gauge(metrics)).toEqual([
      ['postgres', 1],
      ['kafka', 0],
    ]);
  });

  it('is not ready when a required check fails, throws or hangs past its bound', async () => {
    const cases: (() => Promise<boolean>)[] = [
      async () => false,
      async () => {
        throw new Error('refused');
      },
      () => new Promise<boolean>(() => {}), // a frozen dependency never answers
    ];
    for (const postgres of cases) {
      const r = createReadiness({
        checks: { postgres },
        required: ['postgres'],
        metrics: createMetrics('svc'),
        timeoutMs: 50,
        refreshMs: 0,
      });
      const started = Date.now();
      expect(await r.probe()).toEqual({ ready: false, checks: { postgres: false } });
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });

  it('refuses a required dependency it has no check for', () => {
    expect(() => createReadiness({ checks: {}, required: ['postgres'], metrics: createMetrics('svc') })).toThrow(/postgres/);
  });
});
