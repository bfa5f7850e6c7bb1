// The chaos soak (issue 26): `npm run chaos`. Needs no running servers: it starts a private
// PostgreSQL and Kafka, two cores, two deliveries, evidence and two gateways as processes, writes
// and reads through the gateways while it freezes or kills a random member every 20-30 s, and
// prints what the API and the webhooks did (bench/README.md, "Chaos soak"). Settings:
//
//   CHAOS_DURATION_S (600; 120 is the CI-size run)   CHAOS_FAULT_INTERVAL_S (20-30)   CHAOS_FREEZE_S (5-15)
//   CHAOS_WRITES_PER_S (10)   CHAOS_READS_PER_S (5)   CHAOS_SUBSCRIPTIONS (3)   CHAOS_GATEWAYS (2)
//   CHAOS_DRAIN_S (180: the wait for the last webhooks)   CHAOS_REQUEST_TIMEOUT_MS (10000)
//   CHAOS_SEED (random; printed: the same seed strikes the same members the same way)
//   CHAOS_REPORT (.data/chaos-report.json)
//
// Exit status: 0 when nothing was lost, 1 when a webhook was lost (or a signature failed, or a 201
// was not stored), 2 when the soak itself failed, 130 when interrupted. Ctrl-C (SIGTERM, SIGHUP) ends
// the soak early and stops everything it started; a second one kills what is left at once.
import path from 'node:path';
import { runSoak, SoakInterrupted } from '../test/chaos/soak.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const env = process.env;

/** `a-b` (or `a`) as a range of numbers. */
function range(value: string | undefined, fallback: [number, number]): [number, number] {
  if (!value) return fallback;
  const [min, max = min] = value.split('-').map(Number);
  if (!(min >= 0 && max >= min)) throw new Error(`not a range: ${value} (write min-max, e.g. 20-30)`);
  return [min, max];
}

const log = (line: string) => console.error(`[chaos] ${line}`);
const controller = new AbortController();
// A Ctrl-C reaches this process twice (from the terminal, and passed on by npm): a repeat within a
// second is that echo (as scripts/start.mjs reads it), a later one forces.
let firstSignalAt = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => {
    if (!controller.signal.aborted) {
      firstSignalAt = Date.now();
      log(`${signal}: ending the soak and stopping everything it started (again to force)`);
      return controller.abort();
    }
    if (Date.now() - firstSignalAt > 1000) process.exit(130); // the exit hooks SIGKILL every process still running
  });

try {
  const report = await runSoak({
    durationS: Number(env.CHAOS_DURATION_S ?? 600),
    writesPerSecond: Number(env.CHAOS_WRITES_PER_S ?? 10),
    readsPerSecond: Number(env.CHAOS_READS_PER_S ?? 5),
    faultIntervalS: range(env.CHAOS_FAULT_INTERVAL_S, [20, 30]),
    freezeS: range(env.CHAOS_FREEZE_S, [5, 15]),
    subscriptions: Number(env.CHAOS_SUBSCRIPTIONS ?? 3),
    gateways: Number(env.CHAOS_GATEWAYS ?? 2),
    drainS: Number(env.CHAOS_DRAIN_S ?? 180),
    requestTimeoutMs: Number(env.CHAOS_REQUEST_TIMEOUT_MS ?? 10_000),
    seed: Number(env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31)),
    reportPath: path.resolve(ROOT, env.CHAOS_REPORT ?? '.data/chaos-report.json'),
    signal: controller.signal,
    log,
  });
  process.exit(controller.signal.aborted ? 130 : report.ok ? 0 : 1);
} catch (err) {
  if (err instanceof SoakInterrupted) log(err.message);
  else log(`the soak failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(controller.signal.aborted ? 130 : 2);
}
