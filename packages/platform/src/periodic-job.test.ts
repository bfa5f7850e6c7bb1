import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createPeriodicJob } from './periodic-job.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 400 && !cond(); i++) await sleep(5);
  expect(cond()).toBe(true);
};

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: { msg: string; job?: string; err?: { message: string } }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { logger: createLogger('svc', 'warn', destination), lines };
}

const series = async (metrics: Metrics, name: string): Promise<[unknown, number][]> =>
  (await metrics.registry.getSingleMetric(`svc_${name}`)!.get()).values.map((v) => [v.labels.name, v.value]);

describe('createPeriodicJob', () => {
  it('runs after its first delay and then every interval, never two runs at once', async () => {
    const metrics = createMetrics('svc');
    let running = 0;
    let most = 0;
    let runs = 0;
    const job = createPeriodicJob(
      {
        name: 'slow',
        what: 'slow job',
        intervalMs: 1,
        firstDelayMs: 30,
        run: async () => {
          runs++;
          most = Math.max(most, ++running);
          await sleep(20); // far longer than the interval
          running--;
        },
      },
      { ...capturedLogger(), metrics },
    );
    job.start();
    job.start(); // a second start is ignored
    await sleep(10);
    expect(runs).toBe(0); // still in the first delay
    await until(() => runs >= 3);
    await job.stop();
    expect(most).toBe(1);
    const [[label, at]] = await series(metrics, 'periodic_job_last_success_timestamp_seconds');
    expect(label).toBe('slow');
    expect(Math.abs(at - Date.now() / 1000)).toBeLessThan(5);
  });

  it('logs and counts a failed run, and runs again at the next interval', async () => {
    const metrics = createMetrics('svc');
    const { logger, lines } = capturedLogger();
    let runs = 0;
    const job = createPeriodicJob(
      {
        name: 'flaky',
        what: 'flaky sweep',
        intervalMs: 5,
        firstDelayMs: 0,
        run: async () => {
          if (++runs <= 2) throw new Error('database down');
        },
      },
      { logger, metrics },
    );
    expect(await series(metrics, 'periodic_job_failures_total')).toEqual([['flaky', 0]]); // before any run
    job.start();
    await until(() => runs >= 3);
    await job.stop();
    expect(await series(metrics, 'periodic_job_failures_total')).toEqual([['flaky', 2]]);
    expect(lines.map((l) => [l.msg, l.job, l.err?.message])).toEqual([
      ['flaky sweep failed; trying again next interval', 'flaky', 'database down'],
      ['flaky sweep failed; trying again next interval', 'flaky', 'database down'],
    ]);
    expect(await series(metrics, 'periodic_job_last_success_timestamp_seconds')).toHaveLength(1);
  });

  it('stop() aborts the running job through its signal and resolves only once the run has ended', async () => {
    const metrics = createMetrics('svc');
    let ended = false;
    let started = false;
    const job = createPeriodicJob(
      {
        name: 'long',
        what: 'long job',
        intervalMs: 60_000,
        firstDelayMs: 0,
        run: async (signal) => {
          started = true;
          while (!signal.aborted) await sleep(5);
          await sleep(30); // finishing the batch in hand
          ended = true;
        },
      },
      { ...capturedLogger(), metrics },
    );
    job.start();
    await until(() => started);
    await job.stop();
    expect(ended).toBe(true);
    job.start(); // a stopped job stays stopped
    await sleep(20);
    expect(await series(metrics, 'periodic_job_failures_total')).toEqual([['long', 0]]);
  });

  it('stop() ends the wait for the next run at once; a disabled job never runs', async () => {
    const metrics = createMetrics('svc');
    let runs = 0;
    const deps = { ...capturedLogger(), metrics };
    const waiting = createPeriodicJob(
      { name: 'hourly', what: 'hourly job', intervalMs: 3_600_000, run: async () => void runs++ },
      deps,
    );
    const off = createPeriodicJob(
      { name: 'off', what: 'off job', intervalMs: 1, enabled: false, run: async () => void runs++ },
      deps,
    );
    waiting.start();
    off.start();
    const before = Date.now();
    await Promise.all([waiting.stop(), off.stop()]);
    expect(Date.now() - before).toBeLessThan(1000);
    expect(runs).toBe(0);
    // Both jobs share the process's series, one label each.
    expect(await series(metrics, 'periodic_job_failures_total')).toEqual([
      ['hourly', 0],
      ['off', 0],
    ]);
  });
});
