// Deliveries/s per destination type (issue 41, item 4). Run while the local Postgres and Kafka run:
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 \
//     node --import tsx bench/destinations.ts
//
// Core, delivery and gateway run as separate processes (as in production). For each destination type
// (http: a local receiver; kafka: a topic of the local Kafka; amqp: a RabbitMQ started here; sqs: an
// ElasticMQ started here) it subscribes BENCH_WATCHERS subscriptions of one organization to one destination,
// commits BENCH_INJECTED events straight into the core's outbox in one transaction (as bench/webhooks.ts's
// "pipeline alone"), and times the first commit to the last delivery recorded `succeeded` (the broker
// acknowledged it: Kafka acks=all, RabbitMQ's confirm, SQS's MessageId; HTTP a 2xx). Knobs: BENCH_INJECTED
// (300), BENCH_WATCHERS (4), BENCH_TYPES (http,kafka,amqp,sqs).
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { connect } from 'amqplib';
import { createDb } from '@cluster/db';
import { requireEnv } from '../test/support/cluster.ts';
import { startReceiver, type Receiver } from '../test/support/receiver.ts';
import { startRabbitMq, type RabbitMq } from '../test/support/rabbitmq.ts';
import { startElasticMq, type ElasticMq } from '../test/support/elasticmq.ts';
import { requiredField } from './support/fields.ts';
import { startBenchCluster } from './support/cluster.ts';
import { injectEntryCreated } from './support/inject.ts';

const INJECTED = Number(process.env.BENCH_INJECTED ?? 300);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 4);
const TYPES = (process.env.BENCH_TYPES ?? 'http,kafka,amqp,sqs').split(',').map((t) => t.trim());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const cluster = await startBenchCluster('benchdest', { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true' });
  const core = createDb(cluster.databaseUrl, { schema: 'core', poolMax: 2 });
  const delivery = createDb(cluster.databaseUrl, { schema: 'delivery', poolMax: 2 });
  const cleanup: (() => Promise<unknown>)[] = [];
  const results: string[] = [];
  try {
    for (const type of TYPES) {
      let destination: Record<string, unknown>;
      if (type === 'http') {
        const r: Receiver = await startReceiver('/d');
        cleanup.push(() => r.close());
        destination = { type: 'http', url: r.url };
      } else if (type === 'kafka') {
        const topic = `bench-${randomBytes(3).toString('hex')}.hooks`;
        const admin = new Kafka({ brokers: requireEnv().brokers, logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        await admin.createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true });
        await admin.disconnect();
        destination = { type: 'kafka', brokers: requireEnv().brokers, topic };
      } else if (type === 'amqp') {
        const rabbit: RabbitMq = await startRabbitMq();
        cleanup.push(() => rabbit.close());
        const conn = await connect(rabbit.url);
        const ch = await conn.createChannel();
        await ch.assertExchange('bench', 'fanout', { durable: true });
        await ch.assertQueue('bench', { durable: true });
        await ch.bindQueue('bench', 'bench', '');
        await conn.close();
        destination = { type: 'amqp', url: rabbit.url, exchange: 'bench', routingKey: '' };
      } else if (type === 'sqs') {
        const sqs: ElasticMq = await startElasticMq(['bench']);
        cleanup.push(() => sqs.close());
        destination = {
          type: 'sqs',
          queueUrl: `${sqs.endpoint}/000000000000/bench`,
          region: 'eu-west-1',
          accessKeyId: 'bench',
          secretAccessKey: 'bench-secret',
        };
      } else throw new Error(`unknown destination type ${type}`);

      const org = await cluster.newOrg(`Bench ${type}`, 1);
      const ids: string[] = [];
      for (let i = 0; i < WATCHERS; i++) {
        const res = await cluster.call(org.key, 'POST', '/webhooks', { destination, eventNames: ['entry.created'] });
        if (res.status !== 201) throw new Error(`subscribe failed: ${JSON.stringify(res.body)}`);
        ids.push(requiredField(res.body, 'id'));
      }
      await sleep(1000);
      const succeeded = async () =>
        Number(
          (
            await delivery.raw<{ rows: { n: string }[] }>(
              `SELECT count(*) AS n FROM delivery.deliveries WHERE "subscriptionId" = ANY(?::uuid[]) AND status = 'succeeded'`,
              [ids],
            )
          ).rows[0].n,
        );
      const inject = (count: number) => injectEntryCreated(core, org, count);
      // Warm-up (connections, producers, JIT), not counted.
      await inject(50);
      while ((await succeeded()) < 50 * WATCHERS) await sleep(100);
      const expected = (50 + INJECTED) * WATCHERS;
      const meter = cluster.meter();
      meter.start();
      const started = performance.now();
      await inject(INJECTED);
      const deadline = Date.now() + 300_000;
      let done = 0;
      while ((done = await succeeded()) < expected && Date.now() < deadline) await sleep(50);
      if (done < expected) throw new Error(`${type}: ${done - 50 * WATCHERS} of ${INJECTED * WATCHERS} delivered in 300 s`);
      const seconds = (performance.now() - started) / 1000;
      const rate = (INJECTED * WATCHERS) / seconds;
      const line = `${type.padEnd(5)} ${INJECTED} events x ${WATCHERS} subscriptions = ${INJECTED * WATCHERS} deliveries in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} deliveries/s`;
      results.push(line);
      console.log(line);
      console.log(meter.report(INJECTED * WATCHERS, 'delivery'));
    }
    console.log(`\n== deliveries/s per destination type (outbox commit -> broker acknowledged)\n${results.join('\n')}`);
  } catch (err) {
    console.error(cluster.tails());
    throw err;
  } finally {
    for (const c of cleanup.reverse()) await c().catch(() => {});
    await core.destroy();
    await delivery.destroy();
    await cluster.stop();
  }
}

await main();
