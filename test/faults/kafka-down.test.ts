import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/poll.ts';
import { startProcessCluster, type ProcessCluster } from '../support/process-cluster.ts';
import { apiOf, createEntry, createProject, expectExactlyOnce, readyz, subscriber, type Api, type Subscriber } from './api.ts';
import { privateBroker, type PrivateBroker } from './support.ts';

// Kafka down or frozen (docs/runbook.md, "When a dependency fails"): reads answer 200 and writes 201
// (their events wait in the outbox), core and delivery stay ready, and the webhooks of those writes
// arrive once the broker is back, exactly once per subscription. Real processes: the services, a
// broker of the test's own that is killed (-9) and restarted, then frozen (SIGSTOP) and thawed.

let broker: PrivateBroker;
let cluster: ProcessCluster;
let api: Api;
let subscribers: Subscriber[];
let projectId: string;

beforeAll(async () => {
  broker = await privateBroker();
  await broker.start();
  cluster = await startProcessCluster('kafkadown', {
    brokers: broker.brokers,
    env: {
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
      WEBHOOK_RETRY_BASE_MS: '200',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      KAFKA_START_WAIT_MS: '2000',
    },
  });
  const { key } = await cluster.newOrg('Kafka Outage Org');
  api = apiOf(cluster.baseUrl, key);
  projectId = await createProject(api, 'Kafka outage');
  subscribers = [await subscriber(api, ['entry.created']), await subscriber(api, ['entry.created'])];
  // The pipeline works before the fault.
  await expectExactlyOnce(subscribers, [await createEntry(api, projectId, 'before')]);
}, 240_000);

afterAll(async () => {
  for (const s of subscribers ?? []) await s.receiver.close();
  await cluster?.stop();
  await broker?.stop();
  broker?.remove();
});

const dependency = async (port: number, name: string) => (await readyz(port)).body?.checks?.[name];

/** While Kafka is out: reads, writes and readiness as the runbook's table says. Returns the entries written. */
async function serveWithoutKafka(tag: string): Promise<string[]> {
  // Core and delivery see the broker go (their probes are bounded) and stay ready.
  expect(
    await until(
      () => dependency(cluster.core.port, 'kafka'),
      (up) => up === false,
      30_000,
    ),
  ).toBe(false);
  expect(
    await until(
      () => dependency(cluster.delivery.port, 'kafka'),
      (up) => up === false,
      30_000,
    ),
  ).toBe(false);
  for (const port of [cluster.core.port, cluster.delivery.port, cluster.gateway.port]) {
    const r = await readyz(port);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const started = Date.now();
    ids.push(await createEntry(api, projectId, `${tag} ${i}`));
    expect(Date.now() - started).toBeLessThan(5000);
    const read = await api('GET', `/entries/${ids[i]}`);
    expect(read.status).toBe(200);
  }
  expect((await api('GET', `/projects/${projectId}/entries`)).status).toBe(200);
  expect((await api('GET', `/webhooks/${subscribers[0].id}`)).status).toBe(200);
  return ids;
}

describe('fault: Kafka down or frozen', () => {
  it('killed: the API serves reads and writes, delivery sends what was due, and the writes’ webhooks arrive once it is back, once each', async () => {
    // A delivery already due before the fault: its receiver refuses it until the broker is gone.
    const late = await subscriber(api, ['entry.created']);
    try {
      late.receiver.respond(() => ({ status: 503 }));
      await createEntry(api, projectId, 'due before the fault');
      await late.receiver.waitFor(1);
      await broker.kill9();
      const ids = await serveWithoutKafka('while Kafka is down');
      // Delivery keeps sending what is due without the broker: the retry comes while it is still down.
      const refused = late.receiver.received.length;
      late.receiver.respond(() => ({ status: 200 }));
      await late.receiver.waitFor(refused + 1, undefined, 60_000);
      await broker.start();
      await expectExactlyOnce(subscribers, ids);
    } finally {
      await api('DELETE', `/webhooks/${late.id}`);
      await late.receiver.close();
    }
  }, 240_000);

  it('down while core and delivery restart: they start without it, serve, and catch up once it is back', async () => {
    await broker.kill9();
    await cluster.core.kill9();
    await cluster.delivery.kill9();
    // Each start waits for /readyz: ready without the broker (after KAFKA_START_WAIT_MS, 2 s here).
    await cluster.core.start();
    await cluster.delivery.start();
    const ids = await serveWithoutKafka('written by a core started without Kafka');
    await broker.start();
    await expectExactlyOnce(subscribers, ids);
  }, 240_000);

  it('frozen (SIGSTOP): the same, and nothing waits on the hung broker', async () => {
    broker.freeze();
    try {
      const ids = await serveWithoutKafka('while Kafka is frozen');
      broker.thaw();
      await expectExactlyOnce(subscribers, ids);
    } finally {
      broker.thaw();
    }
  }, 240_000);
});
