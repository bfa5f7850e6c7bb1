import { Gauge, type Registry } from 'prom-client';
import type { Metrics } from './metrics.ts';

/** How often at most a process reads its SQL gauges, whatever the number of scrapes (two Prometheus replicas, a person with curl). */
export const SQL_GAUGE_MIN_INTERVAL_MS = 5_000;

/** The longest a scrape waits for a reading in progress before it answers with the last one. */
const SQL_GAUGE_WAIT_MS = 2_000;

/** A gauge read from Postgres: `read` runs a query (and catches its own failure, answering a fallback). */
export interface SqlGaugeDefinition {
  name: string;
  help: string;
  read: () => Promise<number>;
}

interface Sampler {
  readers: { read: () => Promise<number>; value: number }[];
  readAt: number;
  inFlight?: Promise<void>;
}

const samplers = new WeakMap<Registry, Sampler>();

/**
 * A gauge whose value is a query, registered on `metrics`. Every SQL gauge of a process shares one
 * sampler: on a scrape, when the last reading is older than SQL_GAUGE_MIN_INTERVAL_MS, the queries
 * run one after the other (one pool connection at a time, never one per gauge at once), and a scrape
 * waits at most SQL_GAUGE_WAIT_MS for them before it answers the last values. So scrapes cannot
 * starve a small serving pool (delivery's 3 connections and 64 concurrent sends: issue 38), and a
 * frozen server cannot hang a scrape.
 */
export function sqlGauge(metrics: Metrics, def: SqlGaugeDefinition): Gauge {
  let sampler = samplers.get(metrics.registry);
  if (!sampler) {
    sampler = { readers: [], readAt: 0 };
    samplers.set(metrics.registry, sampler);
  }
  const s = sampler;
  const reader = { read: def.read, value: 0 };
  s.readers.push(reader);
  return new Gauge({
    name: def.name,
    help: def.help,
    registers: [metrics.registry],
    async collect() {
      await fresh(s);
      this.set(reader.value);
    },
  });
}

async function fresh(s: Sampler): Promise<void> {
  if (!s.inFlight && Date.now() - s.readAt >= SQL_GAUGE_MIN_INTERVAL_MS) {
    s.inFlight = (async () => {
      for (const r of s.readers) r.value = await r.read().catch(() => r.value);
      s.readAt = Date.now();
    })().finally(() => (s.inFlight = undefined));
  }
  if (!s.inFlight) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([s.inFlight, new Promise<void>((resolve) => (timer = setTimeout(resolve, SQL_GAUGE_WAIT_MS)))]);
  clearTimeout(timer);
}
