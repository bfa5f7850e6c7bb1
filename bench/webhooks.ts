// Webhook delivery benchmark (issue 5). Run while the local Postgres and Kafka run:
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 \
//     node --import tsx bench/webhooks.ts
//
// Core, delivery and gateway run as separate processes (as in production); this
// process is the API client and the receiver. It prints:
//   1. sustained deliveries/s from API writes to the receiver, and beside it the
//      ceiling of the same run: a plain loop that signs and POSTs the same bodies
//      to the same receiver with the same concurrency;
//   2. end-to-end latency (API answer -> receiver arrival), p50 and p99, at a
//      steady rate of API writes.
// The API write is POST /projects/:id/entries (an integrator filing a bug); it
// emits entry.created, and "watcher" subscriptions of that event receive it.
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { createDb } from '@cluster/db';
import { startReceiver, type Receiver } from '../test/support/receiver.ts';
import { jsonField, requiredField, stringField } from './support/fields.ts';
import { deliveryHeaders } from '../services/delivery/src/sender/signing.ts';
import { entryWriter, startBenchCluster } from './support/cluster.ts';
import { injectEntryCreated } from './support/inject.ts';

const WRITES = Number(process.env.BENCH_WRITES ?? 400);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 400);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 16);
const CLIENT_CONCURRENCY = Number(process.env.BENCH_CLIENT_CONCURRENCY ?? 16);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 15);
const INJECTED = Number(process.env.BENCH_INJECTED ?? 400);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 8);
// Which phases run: `throughput` (1 and 1b), `latency` (2); BENCH_PHASES=latency for the latency phase alone.
const PHASES = new Set((process.env.BENCH_PHASES ?? 'throughput,latency').split(',').map((p) => p.trim()));
const PER_DESTINATION = Number(process.env.WEBHOOK_PER_DESTINATION_CONCURRENCY ?? 16);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const cluster = await startBenchCluster('bench', {
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
    WEBHOOK_PER_DESTINATION_CONCURRENCY: String(PER_DESTINATION),
  });
  const { call, databaseUrl } = cluster;
  const receivers: Receiver[] = [];
  try {
    const meter = cluster.meter();
    const db = createDb(databaseUrl, { schema: 'core', poolMax: 2 });

    if (PHASES.has('throughput')) {
      // ---- 1. throughput ------------------------------------------------------
      const org = await cluster.newOrg('Bench throughput', PROJECTS);
      const writer = entryWriter(cluster, org);
      const r = await startReceiver('/w');
      receivers.push(r);
      for (let i = 0; i < WATCHERS; i++) {
        const res = await call(org.key, 'POST', '/webhooks', { destinationUrl: `${r.url}${i}`, eventNames: ['entry.created'] });
        if (res.status !== 201) throw new Error(`subscribe failed: ${JSON.stringify(res.body)}`);
      }
      await sleep(1000);
      // The same writes first, untimed: the services' JIT, pools and connections warm up, as the
      // ceiling loop's do below (a cold start once cost the core twice its CPU per write).
      if (WARMUP > 0) {
        const warm = r.received.length + WARMUP * WATCHERS;
        await writer.run(WARMUP, CLIENT_CONCURRENCY);
        await r.waitFor(warm, () => true, Number(process.env.BENCH_WAIT_MS ?? 300_000));
      }
      const baseline = r.received.length;
      const expected = WRITES * WATCHERS;
      meter.start();
      const started = performance.now();
      await writer.run(WRITES, CLIENT_CONCURRENCY);
      const writesDone = performance.now();
      await r.waitFor(baseline + expected, () => true, Number(process.env.BENCH_WAIT_MS ?? 300_000));
      const finished = performance.now();
      const pipelineSeconds = (finished - started) / 1000;
      const pipelineRate = expected / pipelineSeconds;
      const pipelineCpu = meter.report(expected, 'delivery');

      // The ceiling, same run: sign and POST the same bodies to the same receiver, same concurrency.
      const bodies = r.received
        .slice(baseline)
        .map((g) => ({ body: g.rawBody, path: g.path, event: String(g.headers['x-service-event']) }));
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const plain = new Agent({ connections: PER_DESTINATION });
      const origin = new URL(r.url).origin;
      const ceilingPass = async (list: typeof bodies) => {
        let idx = 0;
        await Promise.all(
          Array.from({ length: PER_DESTINATION }, async () => {
            while (idx < list.length) {
              const b = list[idx++];
              const headers = deliveryHeaders({
                secret,
                deliveryId: randomUUID(),
                eventName: b.event,
                body: b.body,
                timestamp: Math.floor(Date.now() / 1000),
              });
              const res = await request(`${origin}${b.path}`, { method: 'POST', headers, body: b.body, dispatcher: plain });
              await res.body.text();
            }
          }),
        );
      };
      await ceilingPass(bodies.slice(0, 1000)); // warm-up (JIT, connections), not counted
      meter.start();
      const ceilingStart = performance.now();
      await ceilingPass(bodies);
      const ceilingSeconds = (performance.now() - ceilingStart) / 1000;
      const ceilingCpu = meter.report(bodies.length, 'POST');
      const ceilingRate = bodies.length / ceilingSeconds;
      await plain.close();

      console.log(`\n== throughput: ${WRITES} API writes x ${WATCHERS} subscriptions = ${expected} deliveries`);
      console.log(
        `API writes took ${((writesDone - started) / 1000).toFixed(2)} s (${(WRITES / ((writesDone - started) / 1000)).toFixed(0)} writes/s, ${CLIENT_CONCURRENCY} concurrent clients)`,
      );
      console.log(
        `pipeline: ${expected} deliveries in ${pipelineSeconds.toFixed(2)} s = ${pipelineRate.toFixed(0)} deliveries/s (first API write to last arrival)`,
      );
      console.log(
        `ceiling:  ${bodies.length} signed POSTs in ${ceilingSeconds.toFixed(2)} s = ${ceilingRate.toFixed(0)} POSTs/s (plain loop, concurrency ${PER_DESTINATION})`,
      );
      console.log(`ratio:    ${((pipelineRate / ceilingRate) * 100).toFixed(0)}% of the ceiling (goal >= 50%)`);
      console.log(pipelineCpu);
      console.log('ceiling loop (the bench process is its client and the receiver):');
      console.log(
        ceilingCpu
          .split('\n')
          .filter((l) => l.includes('bench'))
          .join('\n'),
      );

      // ---- 1b. the delivery pipeline alone --------------------------------------
      // The same fan-out, but the events are committed straight into the core's outbox in one
      // transaction (no API): relay -> Kafka -> fan-out -> sender -> receiver, without the
      // API's CPU in the way. Same receiver, same 16 watchers.
      if (INJECTED > 0) {
        const before = r.received.length;
        meter.start();
        const injectedStart = performance.now();
        await injectEntryCreated(db, org, INJECTED);
        const injected = INJECTED * WATCHERS;
        await r.waitFor(before + injected, () => true, 300_000);
        const seconds = (performance.now() - injectedStart) / 1000;
        const cpu = meter.report(INJECTED * WATCHERS, 'delivery');
        console.log(
          `pipeline alone: ${INJECTED} events committed to the outbox at once x ${WATCHERS} subscriptions = ${injected} deliveries in ${seconds.toFixed(2)} s = ${(injected / seconds).toFixed(0)} deliveries/s (${((injected / seconds / ceilingRate) * 100).toFixed(0)}% of the ceiling)`,
        );
        console.log(cpu);
      }
    }

    // ---- 2. latency at a steady rate ---------------------------------------
    const org2 = await cluster.newOrg('Bench latency', PROJECTS);
    const writer2 = entryWriter(cluster, org2);
    const r2 = await startReceiver('/lat');
    receivers.push(r2);
    const watch = await call(org2.key, 'POST', '/webhooks', { destinationUrl: r2.url, eventNames: ['entry.created'] });
    if (watch.status !== 201) throw new Error('subscribe failed');
    await sleep(1000);
    if (!PHASES.has('throughput') && WARMUP > 0) {
      // Phase 1 did not warm the services up: the same writes first, untimed.
      await writer2.run(WARMUP, CLIENT_CONCURRENCY);
      await r2.waitFor(WARMUP, () => true, 120_000);
    }
    const answeredAt = new Map<string, number>();
    const total = RATE * RATE_SECONDS;
    meter.start();
    const t0 = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      inflight.push(
        writer2.write().then((res) => {
          answeredAt.set(requiredField(res.body, 'id'), Date.now());
        }),
      );
    }
    await Promise.all(inflight);
    const achieved = total / ((performance.now() - t0) / 1000);
    const entityOf = (g: { body: unknown }) => stringField(g.body, 'entityId') ?? '';
    await r2.waitFor(total, (g) => answeredAt.has(entityOf(g)), 120_000);
    const latencyCpu = meter.report(total, 'write (one delivery each)');
    const latencies = r2.received
      .filter((g) => answeredAt.has(entityOf(g)))
      .map((g) => g.arrivedAt - answeredAt.get(entityOf(g))!)
      .sort((a, b) => a - b);
    console.log(
      `\n== latency: ${total} API writes at ${RATE}/s (achieved ${achieved.toFixed(0)}/s), API answer -> receiver arrival`,
    );
    console.log(
      `p50 ${pct(latencies, 50)} ms, p90 ${pct(latencies, 90)} ms, p99 ${pct(latencies, 99)} ms, max ${latencies[latencies.length - 1]} ms (goal p50 < 50 ms, p99 < 250 ms)`,
    );
    // Where the time goes: event commit -> delivery row (relay, Kafka, fan-out) -> first attempt (sender pickup) -> arrival.
    const ddb = createDb(databaseUrl, { schema: 'delivery', poolMax: 1 });
    const stored: { id: string; createdAt: Date; firstAttemptAt: Date; body: string }[] = await ddb('delivery.deliveries')
      .where({ subscriptionId: requiredField(watch.body, 'id') })
      .select('id', 'createdAt', 'firstAttemptAt', 'body');
    const rows = stored.filter((row) => answeredAt.has(jsonField(row.body, 'entityId') ?? '')); // not the warm-up's
    await ddb.destroy();
    const arrival = new Map(r2.received.map((g) => [stringField(g.body, 'id') ?? '', g.arrivedAt]));
    const stage = (f: (row: (typeof rows)[number]) => number) =>
      rows
        .map(f)
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
    const fan = stage((row) => row.createdAt.getTime() - Date.parse(jsonField(row.body, 'occurredAt') ?? ''));
    const pick = stage((row) => row.firstAttemptAt.getTime() - row.createdAt.getTime());
    const http = stage((row) => (arrival.get(row.id) ?? NaN) - row.firstAttemptAt.getTime());
    // The event's occurredAt is taken just before its transaction commits; the API answer
    // reaches the client later, by the time the answer spends in the core, the gateway and the
    // client's event loops (long on saturated cores). Both views are printed.
    const occurred = new Map(
      rows.map((row) => [jsonField(row.body, 'entityId') ?? '', Date.parse(jsonField(row.body, 'occurredAt') ?? '')]),
    );
    const answerLag = [...answeredAt]
      .map(([id, at]) => at - (occurred.get(id) ?? NaN))
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    const fromCommit = r2.received
      .filter((g) => occurred.has(entityOf(g)))
      .map((g) => g.arrivedAt - occurred.get(entityOf(g))!)
      .sort((a, b) => a - b);
    for (const [name, v] of [
      ['commit -> receiver arrival', fromCommit],
      ['commit -> API answer at the client', answerLag],
      ['commit -> delivery row (relay, Kafka, fan-out)', fan],
      ['delivery row -> first attempt (sender)', pick],
      ['first attempt -> arrival (HTTP)', http],
    ] as const) {
      console.log(`  ${name}: p50 ${pct(v, 50)} ms, p99 ${pct(v, 99)} ms`);
    }
    console.log(latencyCpu);

    await db.destroy();
  } catch (err) {
    console.error(cluster.tails());
    throw err;
  } finally {
    await cluster.stop();
    for (const r of receivers) await r.close();
  }
}

await main();
process.exit(0);
