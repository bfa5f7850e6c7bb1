import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { expect, it } from 'vitest';
import { requireEnv } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { freePort } from './support/processes.ts';
import { destinationScenarios, type BrokerMessage } from './support/destination-scenarios.ts';

// Deliveries to a customer's Kafka topic (docs/webhooks.md, "Kafka"): the project's own broker plays the
// customer's, on a topic of its own. The broker cannot be stopped here (every test shares it), so "away"
// is a subscription pointing at a closed port, then at the broker again.
const topic = `dest-${randomBytes(4).toString('hex')}.customer-hooks`;
const seen: BrokerMessage[] = [];
let consumer: Consumer | undefined;
let closedPort = 0;

destinationScenarios(
  {
    type: 'kafka',
    secrets: [],
    async setup() {
      const { brokers } = requireEnv();
      closedPort = await freePort();
      const kafka = new Kafka({ brokers, clientId: 'destination-test', logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
      await admin.disconnect();
      consumer = kafka.consumer({ groupId: `destination-test-${randomBytes(4).toString('hex')}` });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message, partition }) => {
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
          seen.push({ body: String(message.value), headers, key: message.key ? String(message.key) : null, partition });
        },
      });
    },
    async teardown() {
      await consumer?.disconnect();
    },
    destination: () => ({ type: 'kafka', brokers: requireEnv().brokers, topic }),
    unreachable: () => ({ type: 'kafka', brokers: [`127.0.0.1:${closedPort}`], topic }),
    collect: async () => [...seen],
  },
  (ctx) => {
    it('keys each message by its entity: one entity’s events on one partition, in order (ordering per_entity)', async () => {
      const { cluster: c, subscribe, entry, deliveries } = ctx();
      const org = await c.seedOrg('kafka ordering');
      const { id } = await subscribe(org, { type: 'kafka', brokers: requireEnv().brokers, topic }, { ordering: 'per_entity' });
      const entityId = await entry(org, 'v0');
      for (let i = 1; i <= 4; i++)
        expect((await c.api(org.key, 'PATCH', `/entries/${entityId}`, { title: `v${i}` })).status).toBe(200);
      const mine = await until(
        async () => seen.filter((m) => m.key === entityId),
        (got) => got.length >= 5,
        30_000,
      );
      const records = await deliveries(org, id);
      expect(mine.length, JSON.stringify(records)).toBe(5);
      expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
      expect(mine.map((m) => JSON.parse(m.body).eventName)).toEqual(['entry.created', ...Array(4).fill('entry.updated')]);
      expect(mine.map((m) => JSON.parse(m.body).payload.title)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
    }, 60_000);

    it('refuses a broken destination with pointers, and shows SASL credentials masked', async () => {
      const { cluster: c } = ctx();
      const org = await c.seedOrg('kafka validation');
      const refused = await c.api(org.key, 'POST', '/webhooks', {
        destination: { type: 'kafka', brokers: ['no-port'], topic, queueUrl: 'https://x.example/q' },
        eventNames: ['entry.created'],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.details.errors.map((e: { path: string }) => e.path)).toEqual(['/destination/queueUrl']);
      const badBroker = await c.api(org.key, 'POST', '/webhooks', {
        destination: { type: 'kafka', brokers: ['no-port'], topic },
        eventNames: ['entry.created'],
      });
      expect(badBroker.body.details.errors.map((e: { path: string }) => e.path)).toEqual(['/destination/brokers/0']);
      const both = await c.api(org.key, 'POST', '/webhooks', {
        destinationUrl: 'https://example.com/h',
        destination: { type: 'kafka', brokers: requireEnv().brokers, topic },
        eventNames: ['entry.created'],
      });
      expect(both.status).toBe(400);
      const headers = await c.api(org.key, 'POST', '/webhooks', {
        destination: { type: 'kafka', brokers: requireEnv().brokers, topic },
        headers: { 'X-Custom': 'v' },
        eventNames: ['entry.created'],
      });
      expect(headers.body.details.errors.map((e: { path: string }) => e.path)).toEqual(['/headers']);
      const password = 'sasl-password-0123456789';
      const sasl = await c.api(org.key, 'POST', '/webhooks', {
        destination: {
          type: 'kafka',
          brokers: ['127.0.0.1:1'],
          topic,
          sasl: { mechanism: 'scram-sha-512', username: 'hooks', password },
        },
        eventNames: ['entry.created'],
      });
      expect(sasl.status).toBe(201);
      expect(sasl.body.destination).toEqual({
        type: 'kafka',
        brokers: ['127.0.0.1:1'],
        topic,
        tls: false,
        sasl: { mechanism: 'scram-sha-512', username: 'hooks', password: '****6789' },
      });
      expect(sasl.body.destinationUrl).toBe(`kafka://127.0.0.1:1/${topic}`);
      const row = await c.api(org.key, 'GET', `/webhooks/${sasl.body.id}`);
      expect(JSON.stringify(row.body)).not.toContain(password);
      // Back to HTTP: destinationUrl replaces the broker destination.
      const http = await c.api(org.key, 'PATCH', `/webhooks/${sasl.body.id}`, { destinationUrl: 'https://example.com/h' });
      expect(http.body.destination).toEqual({ type: 'http', url: 'https://example.com/h' });
    });
  },
);
