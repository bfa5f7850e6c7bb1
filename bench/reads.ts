// Latency and CPU of authenticated reads through the whole stack (gateway -> core -> Postgres).
// Run while the local Postgres and Kafka run:
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 \
//     node --import tsx bench/reads.ts
//
// For each read: BENCH_READS sequential calls (p50/p99 latency), then the same number with
// BENCH_CLIENT_CONCURRENCY clients (req/s and CPU milliseconds per read of each process).
// Used to check that a refactor does not make the request path slower (bench/README.md).
import { startBenchCluster } from './support/cluster.ts';

const READS = Number(process.env.BENCH_READS ?? 1000);
const CLIENTS = Number(process.env.BENCH_CLIENT_CONCURRENCY ?? 16);

const cluster = await startBenchCluster('benchreads');
try {
  const org = await cluster.newOrg('Bench reads', 1);
  const projectId = org.projectIds[0];
  for (let i = 0; i < 25; i++) {
    const res = await cluster.call(org.key, 'POST', `/projects/${projectId}/entries`, {
      type: 'feedback',
      title: `Entry ${i}`,
      description: 'x',
    });
    if (res.status !== 201) throw new Error(`entry failed: ${JSON.stringify(res.body)}`);
  }
  const reads: [string, string][] = [
    ['GET /me', '/me'],
    ['GET /projects/:id', `/projects/${projectId}`],
    ['GET /projects/:id/entries (25)', `/projects/${projectId}/entries`],
  ];
  const one = async (path: string) => {
    const res = await cluster.call(org.key, 'GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  for (const [name, path] of reads) {
    for (let i = 0; i < 200; i++) await one(path); // warm-up: JIT, pools, prepared statements
    const times: number[] = [];
    for (let i = 0; i < READS; i++) {
      const t = performance.now();
      await one(path);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const meter = cluster.meter();
    meter.start();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next++ < READS) await one(path);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `\n== ${name}: sequential p50 ${times[Math.floor(READS * 0.5)].toFixed(2)} ms, p99 ${times[Math.floor(READS * 0.99)].toFixed(2)} ms;` +
        ` ${CLIENTS} clients: ${(READS / seconds).toFixed(0)} req/s`,
    );
    console.log(meter.report(READS, 'read'));
  }
} finally {
  await cluster.stop();
}
