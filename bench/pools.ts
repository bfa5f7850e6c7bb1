// Production-shape pools under load (issue 38, finding 4): two replicas of each backend and two
// gateways, each with its Deployment's settings from k8s/base (DB_POOL_MAX, NODE_OPTIONS' heap cap;
// WEBHOOK_CONCURRENCY as the manifests leave it), behind layer-4 balancers that follow the
// Deployments' readiness probes (test/support/balancer.ts, as the chaos soak has), driven in steps of
// closed-loop API clients up to and past what this machine's two cores can do, with webhooks to a
// local receiver and every pod scraped every 5 s by two "Prometheus replicas". It prints, per step,
// throughput and latency, statuses, machine CPU, per-pod throughput, pool waits (p99 and timeouts)
// and the deepest acquire queue, and it checks:
//   - no replica left its balancer's rotation (a failed readiness probe under load);
//   - no 503 and no pool-acquire timeout in a step below saturation.
// Exit status 1 when a check fails. Run while the local Postgres and Kafka run (bench/README.md):
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 \
//     node --conditions=@cluster/source --import tsx bench/pools.ts
//
// Knobs: BENCH_STEPS (concurrent clients per step, "8,32,96,160"), BENCH_STEP_S (30), BENCH_WRITE_SHARE
// (0.3 of requests are entry creates; the rest reads), BENCH_POOL_<SERVICE> (a DB_POOL_MAX other than
// the manifest's, to compare sizes). A step is saturated when its throughput is less than 1.15 times
// the best of the steps before it (more clients bought nothing): on this shared machine the CPU is
// busy from the first step, so the machine's busy share is printed, not used.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { parseAllDocuments } from 'yaml';
import { serviceProcess, type ServiceProcess } from '../test/faults/support.ts';
import { dropDatabase, freshDatabaseUrl } from '../test/support/cluster.ts';
import { manifestProbe, startBalancer, type Balancer } from '../test/support/balancer.ts';
import { mintOrgKey } from '../test/support/process-cluster.ts';
import { buildServices, freePort } from '../test/support/processes.ts';
import { startReceiver } from '../test/support/receiver.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const STEPS = (process.env.BENCH_STEPS ?? '8,32,96,160').split(',').map(Number);
const STEP_S = Number(process.env.BENCH_STEP_S ?? 30);
const WRITE_SHARE = Number(process.env.BENCH_WRITE_SHARE ?? 0.3);
const SCRAPE_MS = 5_000;
const PROJECTS = 4;
type Service = 'core' | 'delivery' | 'evidence' | 'gateway';

/** The settings of a Deployment's container that size it: its pool, its heap cap, its concurrency. */
function manifestSettings(service: Service): Record<string, string> {
  const docs = parseAllDocuments(readFileSync(path.join(ROOT, 'k8s', 'base', `${service}.yaml`), 'utf8'));
  const deployment = docs.map((d) => d.toJS() as Manifest | null).find((m) => m?.kind === 'Deployment');
  const env = deployment?.spec.template.spec.containers[0].env ?? [];
  const keep = ['NODE_OPTIONS', 'DB_POOL_MAX', 'WEBHOOK_CONCURRENCY', 'WEBHOOK_PER_DESTINATION_CONCURRENCY'];
  const settings = Object.fromEntries(env.filter((e) => keep.includes(e.name) && e.value).map((e) => [e.name, e.value!]));
  const override = process.env[`BENCH_POOL_${service.toUpperCase()}`];
  if (override) settings.DB_POOL_MAX = override;
  return settings;
}

/** The part of a Deployment manifestSettings reads. */
interface Manifest {
  kind: string;
  spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
}

/** One pod: its process, name and where its metrics are. */
interface Pod {
  service: Service;
  name: string;
  proc: ServiceProcess;
  metricsPort: number;
}

/** Prometheus text as series -> value (`name{labels}` kept whole). */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Sum of the series of `name` whose labels contain every one of `labels`. */
function sum(m: Map<string, number>, name: string, ...labels: string[]): number {
  let total = 0;
  for (const [series, v] of m) {
    const bare = series.split('{')[0];
    if (bare === name && labels.every((l) => series.includes(l))) total += v;
  }
  return total;
}

/** The p99 (upper bound of its bucket) of a histogram's increase between two scrapes; undefined without observations. */
function histogramP99(before: Map<string, number>, after: Map<string, number>, name: string, label: string): number | undefined {
  const buckets = new Map<number, number>();
  for (const [series, v] of after) {
    if (!series.startsWith(`${name}_bucket{`) || !series.includes(label)) continue;
    const le = series.match(/le="([^"]+)"/)![1];
    buckets.set(le === '+Inf' ? Infinity : Number(le), v - (before.get(series) ?? 0));
  }
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (!total) return undefined;
  return sorted.find(([, count]) => count >= total * 0.99)![0];
}

/** The machine's busy share of all cores between two reads of /proc/stat. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + fields[4];
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

async function main(): Promise<number> {
  const server = process.env.TEST_DATABASE_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!server || !brokers) throw new Error('set TEST_DATABASE_URL and KAFKA_BROKERS (bench/README.md)');
  await buildServices();
  const databaseUrl = freshDatabaseUrl('pools', server);
  const base = {
    CLUSTER_ENV: 'development', // the development keys and a loopback receiver
    DATABASE_URL: databaseUrl,
    DATABASE_CREATE: 'true',
    KAFKA_BROKERS: brokers,
    KAFKA_TOPIC_PREFIX: `pools${randomBytes(3).toString('hex')}.`,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
  };
  const pods: Pod[] = [];
  const balancers = new Map<Service, Balancer>();
  const cleanups: (() => Promise<void>)[] = [];
  const settings = Object.fromEntries(
    (['core', 'delivery', 'evidence', 'gateway'] as const).map((s) => [s, manifestSettings(s)]),
  ) as Record<Service, Record<string, string>>;
  cleanups.push(() => dropDatabase(databaseUrl)); // last: after every process stopped
  try {
    const replicas = async (service: Service, extra: Record<string, string>) => {
      const started: Pod[] = [];
      for (const i of [1, 2]) {
        const metricsPort = service === 'gateway' ? await freePort() : 0;
        const env = {
          ...base,
          ...settings[service],
          ...extra,
          ...(metricsPort && { GATEWAY_METRICS_PORT: String(metricsPort) }),
        };
        const proc = await serviceProcess(service, env, service === 'gateway' ? { readyPath: '/healthz' } : {});
        cleanups.push(() => proc.stop());
        await proc.start();
        started.push({ service, name: `${service}-${i}`, proc, metricsPort: metricsPort || proc.port });
      }
      pods.push(...started);
      const lb = await startBalancer(
        started.map((p) => ({ name: p.name, port: p.proc.port })),
        manifestProbe(service),
      );
      cleanups.push(() => lb.close());
      await lb.waitForAll(120_000);
      balancers.set(service, lb);
      return lb;
    };
    console.error('[pools] starting 2 cores, 2 deliveries, 2 evidence, 2 gateways with the manifests settings');
    const core = await replicas('core', {});
    const delivery = await replicas('delivery', { CORE_URL: core.url });
    const evidence = await replicas('evidence', { CORE_URL: core.url });
    const gateway = await replicas('gateway', { CORE_URL: core.url, DELIVERY_URL: delivery.url, EVIDENCE_URL: evidence.url });

    // An organization, projects, and two webhook subscriptions to entry.created on a local receiver.
    const { key } = await mintOrgKey(databaseUrl, 'Pools');
    const agent = new Agent({ connections: Math.max(...STEPS) + 8, pipelining: 1 });
    cleanups.push(() => agent.close());
    const call = async (method: 'GET' | 'POST', p: string, body?: unknown) => {
      const res = await request(`${gateway.url}/api/v1${p}`, {
        method,
        dispatcher: agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    };
    const projects: string[] = [];
    for (let i = 0; i < PROJECTS; i++) {
      const r = await call('POST', '/projects', { name: `pools ${i}`, description: 'bench' });
      if (r.status !== 201) throw new Error(`create project answered ${r.status}`);
      projects.push(String(r.body.id));
    }
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    for (let i = 0; i < 2; i++) {
      const r = await call('POST', '/webhooks', { destinationUrl: `${receiver.url}?s=${i}`, eventNames: ['entry.created'] });
      if (r.status !== 201) throw new Error(`subscribe answered ${r.status}: ${JSON.stringify(r.body)}`);
    }
    const setupTransitions = [...balancers.values()].reduce((n, b) => n + b.history().transitions.length, 0);

    // Two "Prometheus replicas" scrape every pod every SCRAPE_MS; the deepest acquire queue and the slowest scrape are kept.
    const scrape = async (pod: Pod) => {
      const t0 = performance.now();
      const res = await request(`http://127.0.0.1:${pod.metricsPort}/metrics`, { headersTimeout: 10_000, bodyTimeout: 10_000 });
      const m = parseMetrics(await res.body.text());
      return { m, ms: performance.now() - t0 };
    };
    const peaks = new Map<string, { pending: number; used: number; scrapeMs: number }>();
    const peak = (name: string) => peaks.get(name) ?? { pending: 0, used: 0, scrapeMs: 0 };
    let scraping = true;
    const scraper = (async () => {
      while (scraping) {
        await Promise.all(
          pods.flatMap((pod) =>
            [0, 1].map(async () => {
              const { m, ms } = await scrape(pod).catch(() => ({ m: new Map<string, number>(), ms: 10_000 }));
              const p = peak(pod.name);
              const prefix = `${pod.service}_db_pool_connections`;
              peaks.set(pod.name, {
                pending: Math.max(p.pending, sum(m, prefix, 'state="pending"')),
                used: Math.max(p.used, sum(m, prefix, 'state="used"')),
                scrapeMs: Math.max(p.scrapeMs, ms),
              });
            }),
          ),
        );
        await new Promise((r) => setTimeout(r, SCRAPE_MS));
      }
    })();

    const rows: string[] = [];
    const podRows: string[] = [];
    const problems: string[] = [];
    let previousRate = 0;
    for (const clients of STEPS) {
      peaks.clear();
      const before = new Map(await Promise.all(pods.map(async (p) => [p.name, (await scrape(p)).m] as const)));
      const received0 = receiver.received.length;
      const transitions0 = new Map([...balancers].map(([s, b]) => [s, b.history().transitions.length]));
      const cpu0 = cpuTimes();
      const latencies: number[] = [];
      const statuses = new Map<number, number>();
      const end = Date.now() + STEP_S * 1000;
      let n = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (Date.now() < end) {
            const project = projects[n++ % PROJECTS];
            const t0 = performance.now();
            const r = Math.random();
            const answer = await (
              r < WRITE_SHARE
                ? call('POST', `/projects/${project}/entries`, { type: 'feedback', title: `load ${n}`, description: 'pools' })
                : r < WRITE_SHARE + (1 - WRITE_SHARE) / 2
                  ? call('GET', `/projects/${project}/entries`)
                  : call('GET', `/projects/${project}`)
            ).catch(() => ({ status: 0, body: {} }));
            latencies.push(performance.now() - t0);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          }
        }),
      );
      const cpu1 = cpuTimes();
      const after = new Map(await Promise.all(pods.map(async (p) => [p.name, (await scrape(p)).m] as const)));
      latencies.sort((a, b) => a - b);
      const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
      const rate = latencies.length / STEP_S;
      const busy = (cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total);
      const saturated = previousRate > 0 && rate < previousRate * 1.15;
      previousRate = Math.max(previousRate, rate);
      const unavailable = statuses.get(503) ?? 0;
      const others = [...statuses].filter(([s]) => s >= 500 || s === 0).filter(([s]) => s !== 503);
      const webhooks = (receiver.received.length - received0) / STEP_S;
      const unready = [...balancers].flatMap(([s, b]) =>
        b
          .history()
          .transitions.slice(transitions0.get(s))
          .filter((t) => !t.ready),
      );
      const status = [...statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, c]) => `${s || 'net'}: ${c}`)
        .join(', ');
      rows.push(
        `| ${clients} | ${rate.toFixed(0)} | ${q(0.5).toFixed(0)} | ${q(0.99).toFixed(0)} | ${status} | ${webhooks.toFixed(0)} | ${(busy * 100).toFixed(0)}% | ${saturated ? 'yes' : 'no'} | ${os.loadavg()[0].toFixed(1)} | ${unready.length} |`,
      );
      for (const pod of pods) {
        const b = before.get(pod.name)!;
        const a = after.get(pod.name)!;
        const delta = (name: string, ...labels: string[]) => sum(a, name, ...labels) - sum(b, name, ...labels);
        const work =
          pod.service === 'gateway'
            ? delta('gateway_http_requests_total')
            : pod.service === 'delivery'
              ? delta('delivery_webhook_deliveries_total') + delta('delivery_rpc_requests_total')
              : delta(`${pod.service}_rpc_requests_total`);
        const pool = `${pod.service}_db_pool_acquire_seconds`;
        const p99 = pod.service === 'gateway' ? undefined : histogramP99(b, a, pool, 'result="ok"');
        const timeouts = pod.service === 'gateway' ? 0 : delta(`${pool}_count`, 'result="timeout"');
        const acquires = pod.service === 'gateway' ? 0 : delta(`${pool}_count`);
        const pk = peak(pod.name);
        const poolMax = settings[pod.service].DB_POOL_MAX ?? '-';
        podRows.push(
          `| ${clients} | ${pod.name} | ${poolMax} | ${(work / STEP_S).toFixed(0)} | ${(acquires / STEP_S).toFixed(0)} | ${p99 === undefined ? '-' : p99 === Infinity ? '> 5000' : (p99 * 1000).toFixed(1)} | ${timeouts} | ${pk.used}/${pk.pending} | ${pk.scrapeMs.toFixed(0)} |`,
        );
        if (!saturated && timeouts > 0)
          problems.push(`${clients} clients: ${pod.name} had ${timeouts} pool-acquire timeouts below saturation`);
      }
      for (const t of unready)
        problems.push(`${clients} clients: ${t.name} left its balancer's rotation (readiness failed under load)`);
      if (!saturated && unavailable > 0) problems.push(`${clients} clients: ${unavailable} answers 503 below saturation`);
      if (others.length)
        problems.push(`${clients} clients: ${others.map(([s, c]) => `${c} x ${s || 'network error'}`).join(', ')}`);
      console.error(`[pools] ${clients} clients: ${rate.toFixed(0)} req/s, machine ${(busy * 100).toFixed(0)}% busy`);
    }
    scraping = false;
    await scraper;

    const probeFailures = [...balancers.values()].map((b) => b.history().failedProbes);
    console.log(`\nSettings from k8s/base: ${JSON.stringify(settings)}`);
    console.log(
      `Steps of ${STEP_S} s, ${WRITE_SHARE * 100}% writes (each 2 webhooks), the rest reads; every pod scraped twice per ${SCRAPE_MS / 1000} s.\n`,
    );
    console.log('| clients | req/s | p50 ms | p99 ms | statuses | webhooks/s | machine CPU | saturated | load | unready |');
    console.log('|---:|---:|---:|---:|---|---:|---:|---|---:|---:|');
    for (const r of rows) console.log(r);
    console.log(
      '\n| clients | pod | pool | work/s | acquires/s | pool wait p99 ms | acquire timeouts | peak used/pending | slowest scrape ms |',
    );
    console.log('|---:|---|---:|---:|---:|---:|---:|---|---:|');
    for (const r of podRows) console.log(r);
    console.log(
      `\nFailed readiness probes per pod: ${JSON.stringify(Object.assign({}, ...probeFailures))}; rotation changes during setup: ${setupTransitions}`,
    );
    if (problems.length) {
      console.log(`\nFAILED:\n- ${problems.join('\n- ')}`);
      return 1;
    }
    console.log('\nOK: no replica left its rotation; no 503 and no pool timeout below saturation.');
    return 0;
  } catch (err) {
    for (const p of pods) console.error(`---- ${p.name}\n${p.proc.tail()}`);
    throw err;
  } finally {
    for (const f of cleanups.reverse()) await f().catch(() => {});
  }
}

process.exit(await main());
