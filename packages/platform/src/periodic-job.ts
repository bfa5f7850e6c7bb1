import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';

/** What a periodic job is: declared by the feature that owns the work, run by createPeriodicJob. */
export interface PeriodicJobDefinition {
  /**
   * The `name` label of its metrics, in snake case (`retention_sweep`). Not `job`: Prometheus gives
   * every scraped series the `job` of its target, and would rename ours to `exported_job`.
   */
  name: string;
  /** What its log lines call it (`delivery retention sweep`). */
  what: string;
  /** Time from the end of one run to the start of the next. */
  intervalMs: number;
  /** Wait before the first run (default `intervalMs`). */
  firstDelayMs?: number;
  /** false: `start()` does nothing (a job its configuration turns off). Default true. */
  enabled?: boolean;
  /** One run. `signal` aborts when the job is stopping: a long run may end early (its work is resumed next start). */
  run(signal: AbortSignal): Promise<unknown>;
}

/** A job that runs every `intervalMs` in the background of a service. */
export interface PeriodicJob {
  start(): void;
  /** Ends the wait for the next run, or aborts the run in flight and waits for it to end (shutdown, before the pools close). */
  stop(): Promise<void>;
}

/** The two series every periodic job of a process reports, labelled by its `name`. */
interface PeriodicJobMetrics {
  failures: Counter<'name'>;
  lastSuccess: Gauge<'name'>;
}

/** One pair per registry: every job of a process shares it. */
const metricsOf = new WeakMap<Registry, PeriodicJobMetrics>();

function periodicJobMetrics(metrics: Metrics): PeriodicJobMetrics {
  let found = metricsOf.get(metrics.registry);
  if (!found) {
    const registers = [metrics.registry];
    found = {
      failures: new Counter({
        name: `${metrics.prefix}periodic_job_failures_total`,
        help: 'Runs of a periodic job (sweeps, pruning) that failed; it runs again at its next interval.',
        labelNames: ['name'] as const,
        registers,
      }),
      lastSuccess: new Gauge({
        name: `${metrics.prefix}periodic_job_last_success_timestamp_seconds`,
        help: 'Unix time at which a periodic job last finished a run without error (absent until its first).',
        labelNames: ['name'] as const,
        registers,
      }),
    };
    metricsOf.set(metrics.registry, found);
  }
  return found;
}

/**
 * Runs `job.run` every `intervalMs` (counted from the end of a run, so runs never overlap), the first
 * after `firstDelayMs`. A run that throws is logged (`<what> failed; trying again next interval`) and
 * counted in `<prefix>periodic_job_failures_total{name}`; one that succeeds sets
 * `<prefix>periodic_job_last_success_timestamp_seconds{name}` (docs/runbook.md). `stop()` aborts
 * the run in flight through its signal and resolves once it has ended. Its timers do not keep the
 * process alive.
 */
export function createPeriodicJob(job: PeriodicJobDefinition, deps: { logger: Logger; metrics: Metrics }): PeriodicJob {
  const { failures, lastSuccess } = periodicJobMetrics(deps.metrics);
  const labels = { name: job.name };
  failures.inc(labels, 0); // the series exists from the start, so increase() sees the first failure
  const stopping = new AbortController();
  let endWait: (() => void) | undefined;
  let loop: Promise<void> | undefined;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        endWait = undefined;
        resolve();
      }
      endWait = done;
    });

  const runOnce = async () => {
    try {
      await job.run(stopping.signal);
      lastSuccess.set(labels, Date.now() / 1000);
    } catch (err) {
      if (stopping.signal.aborted) return; // cut short by stop(): not a failure
      failures.inc(labels);
      deps.logger.warn({ err, job: job.name }, `${job.what} failed; trying again next interval`);
    }
  };

  return {
    start() {
      if (job.enabled === false || loop || stopping.signal.aborted) return;
      loop = (async () => {
        await wait(job.firstDelayMs ?? job.intervalMs);
        while (!stopping.signal.aborted) {
          await runOnce();
          await wait(job.intervalMs);
        }
      })();
    },
    async stop() {
      stopping.abort();
      endWait?.();
      await loop;
    },
  };
}
