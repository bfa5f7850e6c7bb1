import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';
import { sqlGauge } from './sql-gauge.ts';

// The SQL gauges of a process share one sampler (issue 38: delivery's four gauges and its relay's two
// per scrape, on a pool of 3 connections busy with 64 concurrent sends): one query at a time, at most
// once per 5 s whatever the number of scrapes, and a hung query never hangs a scrape.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sqlGauge', () => {
  it('reads every gauge one query at a time, once for concurrent scrapes, and serves the reading until it is 5 s old', async () => {
    const metrics = createMetrics('gaugetest');
    let running = 0;
    let most = 0;
    const reads: string[] = [];
    const reader = (name: string, value: number) => async () => {
      running++;
      most = Math.max(most, running);
      reads.push(name);
      await sleep(20);
      running--;
      return value;
    };
    for (const [name, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ] as const)
      sqlGauge(metrics, { name: `gaugetest_${name}`, help: name, read: reader(name, value) });
    const scrapes = await Promise.all([metrics.registry.metrics(), metrics.registry.metrics(), metrics.registry.metrics()]);
    expect(most).toBe(1);
    expect(reads).toEqual(['a', 'b', 'c', 'd']);
    for (const text of scrapes)
      for (const line of ['gaugetest_a{service="gaugetest"} 1', 'gaugetest_d{service="gaugetest"} 4'])
        expect(text).toContain(line);
    await metrics.registry.metrics();
    expect(reads).toHaveLength(4); // still fresh: no query
  });

  it('answers a scrape within about 2 s with the last values while a query hangs', async () => {
    const metrics = createMetrics('hangtest');
    let hang = false;
    sqlGauge(metrics, {
      name: 'hangtest_backlog',
      help: 'x',
      read: () => (hang ? new Promise<number>(() => {}) : Promise.resolve(7)),
    });
    expect(await metrics.registry.metrics()).toContain('hangtest_backlog{service="hangtest"} 7');
    hang = true;
    const realNow = Date.now;
    Date.now = () => realNow() + 6_000; // the reading is stale: the next scrape reads again, and that read hangs
    try {
      const t0 = performance.now();
      const text = await metrics.registry.metrics();
      expect(performance.now() - t0).toBeLessThan(3_000);
      expect(text).toContain('hangtest_backlog{service="hangtest"} 7');
    } finally {
      Date.now = realNow;
    }
  });
});
