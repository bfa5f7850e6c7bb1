import { Gauge } from 'prom-client';
import type { Metrics } from './metrics.ts';

/**
 * What a service's `/readyz` reports: every dependency's state, and whether the service can serve
 * its own traffic. Readiness is local (docs/runbook.md, "Readiness"): only the dependencies a
 * service cannot serve without are `required` (Postgres for the backends); the others (Kafka) are
 * shown, and exported as `<service>_dependency_up`, but never make a pod unready, so one broker
 * outage cannot take every pod out of its Service together.
 */
export interface Readiness {
  /** Runs every check (each bounded by `timeoutMs`), updates the gauges, and says whether the required ones pass. */
  probe(): Promise<{ ready: boolean; checks: Record<string, boolean> }>;
  /** Stops the background refresh of the gauges. */
  stop(): void;
}

export interface ReadinessOptions {
  /** A check per dependency: true when it answers. A throw or a hang past `timeoutMs` counts as false. */
  checks: Record<string, () => Promise<boolean>>;
  /** The checks a service cannot serve without. */
  required: readonly string[];
  metrics: Metrics;
  /** The bound on one check, so a frozen dependency cannot hang a probe (default 1.5 s, under a probe's timeout). */
  timeoutMs?: number;
  /** How often the gauges are refreshed when nothing probes (default 10 s; 0: only on probe). */
  refreshMs?: number;
}

export function createReadiness(opts: ReadinessOptions): Readiness {
  const { checks, required, timeoutMs = 1500, refreshMs = 10_000 } = opts;
  for (const name of required) if (!(name in checks)) throw new Error(`readiness: no check named ${name}`);
  const up = new Gauge({
    name: `${opts.metrics.prefix}dependency_up`,
    help: '1 when the dependency answered its last check, else 0 (required ones make /readyz fail).',
    labelNames: ['dependency', 'required'] as const,
    registers: [opts.metrics.registry],
  });

  const bounded = async (check: () => Promise<boolean>): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        check().catch(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };

  const probe: Readiness['probe'] = async () => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((name) => bounded(checks[name])));
    const state = Object.fromEntries(names.map((name, i) => [name, results[i]]));
    for (const name of names) up.set({ dependency: name, required: String(required.includes(name)) }, state[name] ? 1 : 0);
    return { ready: required.every((name) => state[name]), checks: state };
  };

  const timer = refreshMs > 0 ? setInterval(() => void probe(), refreshMs) : undefined;
  timer?.unref();
  return { probe, stop: () => clearInterval(timer) };
}
