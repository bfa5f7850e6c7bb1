// Where an API write's CPU goes (issue 5's write ceiling). Run while the local Postgres and Kafka run:
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 \
//     node --import tsx bench/api-cpu.ts
//
// Starts core, delivery and gateway as processes (as in production), prints what the
// idle cluster burns, warms up, then sends BENCH_WRITES `POST /projects/:id/entries`
// with BENCH_CLIENT_CONCURRENCY clients and prints writes/s and the CPU milliseconds
// each process spent per write (from /proc/<pid>/stat: user + system), Postgres and
// Kafka included. No subscriptions: this is the API's own cost, the part every
// webhook delivery starts from.
import { entryWriter, startBenchCluster } from './support/cluster.ts';

const WRITES = Number(process.env.BENCH_WRITES ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENT_CONCURRENCY ?? 16);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 8);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);

const cluster = await startBenchCluster('benchcpu');
try {
  const writer = entryWriter(cluster, await cluster.newOrg('Bench CPU', PROJECTS));
  await writer.run(Math.min(300, WRITES), CLIENTS); // warm-up: JIT, pools, connections
  const meter = cluster.meter();

  // What the cluster burns doing nothing (polls, heartbeats, metrics): the fixed part of the figures below.
  meter.start();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  console.log(`\n== idle for ${IDLE_SECONDS} s`);
  console.log(meter.report(IDLE_SECONDS, 'second'));

  meter.start();
  const t0 = performance.now();
  await writer.run(WRITES, CLIENTS);
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `\n== ${WRITES} POST /entries, ${CLIENTS} clients: ${seconds.toFixed(2)} s = ${(WRITES / seconds).toFixed(0)} writes/s`,
  );
  console.log(meter.report(WRITES, 'write'));
} catch (err) {
  console.error(cluster.tails());
  throw err;
} finally {
  await cluster.stop();
}
process.exit(0);
