// Where an API write's CPU goes (issue 5's write ceiling). Run while the local Postgres and Kafka run:
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 \
//     node --import tsx bench/api-cpu.ts
//
// Starts core, delivery and gateway as processes (as in production), warms up, then
// sends BENCH_WRITES `POST /projects/:id/entries` with BENCH_CLIENT_CONCURRENCY clients
// and prints writes/s and the CPU milliseconds each process spent per write (from
// /proc/<pid>/stat: user + system), Postgres and Kafka included. No subscriptions:
// this is the API's own cost, the part every webhook delivery starts from.
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { createAdminOperations } from '@cluster/core';
import { createDb } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl, requireEnv } from '../test/support/cluster.ts';
import { serviceProcess, type ServiceProcess } from '../test/faults/support.ts';
import { clusterGroups, cpuMeter } from './support/cpu.ts';

const WRITES = Number(process.env.BENCH_WRITES ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENT_CONCURRENCY ?? 16);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 8);
async function main() {
  const { brokers } = requireEnv();
  const databaseUrl = freshDatabaseUrl('benchcpu');
  const env = {
    DATABASE_URL: databaseUrl, KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: `b${randomBytes(4).toString('hex')}.`,
    LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '10000000', OUTBOX_RELAY_IDLE_MS: '1000',
  };
  const procs: ServiceProcess[] = [];
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  try {
    const core = await serviceProcess('core', env, { nodeArgs });
    procs.push(core);
    await core.start();
    const delivery = await serviceProcess('delivery', { ...env, CORE_URL: `http://127.0.0.1:${core.port}` }, { nodeArgs });
    procs.push(delivery);
    await delivery.start();
    const gateway = await serviceProcess('gateway', {
      ...env, CORE_URL: `http://127.0.0.1:${core.port}`, DELIVERY_URL: `http://127.0.0.1:${delivery.port}`, EVIDENCE_URL: 'http://127.0.0.1:1',
    }, { readyPath: '/healthz', nodeArgs });
    procs.push(gateway);
    await gateway.start();

    const base = `http://127.0.0.1:${gateway.port}/api/v1`;
    const api = new Agent({ connections: 64 });
    const call = async (key: string, path: string, body: unknown) => {
      const res = await request(`${base}${path}`, {
        method: 'POST', dispatcher: api,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    };
    const db = createDb(databaseUrl, { schema: 'core', poolMax: 1 });
    const admin = createAdminOperations(db);
    const { id: orgId } = await admin.createOrg('Bench CPU');
    const { id: userId } = await admin.createUser(orgId, `bench-${randomUUID()}@example.test`, 'Bench', 'admin');
    const { key } = await admin.createKey({ user: userId, scope: 'organization' });
    await db.destroy();
    const projects: string[] = [];
    for (let i = 0; i < PROJECTS; i++) {
      const res = await call(key, '/projects', { name: `CPU project ${i}`, description: 'benchmark' });
      if (res.status !== 201) throw new Error(`project: ${JSON.stringify(res.body)}`);
      projects.push(res.body.id);
    }
    let n = 0;
    const run = async (count: number, clients: number) => {
      let next = 0;
      await Promise.all(Array.from({ length: clients }, async () => {
        while (next < count) {
          next++;
          const i = ++n;
          const res = await call(key, `/projects/${projects[i % projects.length]}/entries`, {
            type: 'bug_report', title: `Checkout button does nothing #${i}`, description: 'Clicking "Pay" shows a spinner forever.', priority: 'high',
          });
          if (res.status !== 201) throw new Error(`write: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }));
    };
    await run(Math.min(300, WRITES), CLIENTS); // warm-up: JIT, pools, connections

    const meter = cpuMeter(clusterGroups([
      { name: 'gateway', pid: () => gateway.pid }, { name: 'core', pid: () => core.pid }, { name: 'delivery', pid: () => delivery.pid },
    ]));
    // What the cluster burns doing nothing (polls, heartbeats, metrics): the fixed part of the figures below.
    const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
    meter.start();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    console.log(`\n== idle for ${IDLE_SECONDS} s`);
    console.log(meter.report(IDLE_SECONDS, 'second'));
    meter.start();
    const t0 = performance.now();
    await run(WRITES, CLIENTS);
    const seconds = (performance.now() - t0) / 1000;
    console.log(`\n== ${WRITES} POST /entries, ${CLIENTS} clients: ${seconds.toFixed(2)} s = ${(WRITES / seconds).toFixed(0)} writes/s`);
    console.log(meter.report(WRITES, 'write'));
    await api.close();
  } catch (err) {
    for (const p of procs) console.error(`---- ${p.tail()}`);
    throw err;
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await dropDatabase(databaseUrl);
  }
}

await main();
process.exit(0);
