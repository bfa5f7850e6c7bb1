// Kafka clients compared (issue 39): kafkajs 2.2.4 as packages/kafka configures it (with its request-queue
// fix) against @platformatic/kafka (its own API: 2.12.1 has no kafkajs compatibility layer yet), on the project's
// broker. Run while the local Kafka runs (npm test / npm start start it, or a holder of scripts/lib/infra.mjs):
//
//   npm install --no-save @platformatic/kafka@2.12.1   # not a dependency: it wants Node >= 22.22
//   KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/kafka-clients.ts
//
// knobs: BENCH_CLIENTS (kafkajs,platformatic), BENCH_MESSAGES (20000 per produce phase),
//        BENCH_BATCHES (1,10,100: messages per send), BENCH_RATE (200 messages/s), BENCH_RATE_SECONDS (15),
//        BENCH_IDLE_SECONDS (10), BENCH_FETCH_WAIT_MS (200: the fan-out consumer's maxWaitTimeInMs),
//        BENCH_PHASES (produce,consume,steady,idle; steady and idle share a consumer), BENCH_FETCH_MIN_BYTES (1), BENCH_LINGER_MS (0: in the steady phase, gather sends for this long, as a relay
//        with OUTBOX_RELAY_LINGER_MS does)
//
// Each client runs in a child process of its own (its own JIT, its own CPU account). Phases, each
// metered by /proc (user + system CPU of the client process and of the broker that listens on
// KAFKA_BROKERS' port, bench/support/cpu.ts):
//   1. produce: the relay's shape. Sequential sends of B CloudEvent messages (binary mode, the relay's
//      headers, keyed by entity id over the domain topic's 6 partitions), acks=all, idempotent;
//      messages/s and CPU per message, for each B of BENCH_BATCHES.
//   2. consume: the fan-out consumer's shape. A new group reads everything phase 1 wrote: batches per
//      partition, 3 partitions at a time, each message decoded as the fan-out does
//      (eventFromKafkaMessage), offsets committed once a second; messages/s and CPU per message.
//   3. steady: one message per send at BENCH_RATE/s, a consumer of the same shape; producer send ->
//      consumer arrival p50/p99 and CPU per message. This is where fetch waits show.
//   4. idle: a connected producer and a joined consumer, nothing sent: CPU per second.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { eventFromKafkaMessage, toKafkaBinary, type EventEnvelope, type KafkaHeaders } from '@cluster/contracts';
import { createKafka, createProducer, DOMAIN_EVENT_PARTITIONS, type Producer } from '@cluster/kafka';
import type { Kafka } from 'kafkajs';
import { cpuMeter, kafkaBrokerPids } from './support/cpu.ts';

const CLIENTS = (process.env.BENCH_CLIENTS ?? 'kafkajs,platformatic').split(',').map((c) => c.trim());
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const BATCHES = (process.env.BENCH_BATCHES ?? '1,10,100').split(',').map(Number);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 15);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const FETCH_WAIT_MS = Number(process.env.BENCH_FETCH_WAIT_MS ?? 200);
const FETCH_MIN_BYTES = Number(process.env.BENCH_FETCH_MIN_BYTES ?? 1);
const LINGER_MS = Number(process.env.BENCH_LINGER_MS ?? 0);
const PHASES = new Set((process.env.BENCH_PHASES ?? 'produce,consume,steady,idle').split(',').map((p) => p.trim()));
const BROKERS = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A message as the relay hands it to the client. */
export interface OutgoingMessage {
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** A message as the fan-out reads it. */
export interface IncomingMessage {
  headers: KafkaHeaders;
  value: Buffer | null;
}

/** What the bench needs of a client: a producer in the relay's shape, a consumer in the fan-out's. */
export interface BenchClient {
  producer(): Promise<{ send(topic: string, messages: OutgoingMessage[]): Promise<void>; close(): Promise<void> }>;
  /** A member of `groupId` reading `topic` from its start; resolves once it has joined and been assigned. */
  consumer(topic: string, groupId: string, onBatch: (messages: IncomingMessage[]) => void): Promise<{ close(): Promise<void> }>;
}

/** The relay's message of an entry.created event: a CloudEvent in binary mode, with the write's trace. */
function eventMessage(i: number): OutgoingMessage {
  const entityId = randomUUID();
  const env: EventEnvelope = {
    id: randomUUID(),
    eventName: 'entry.created',
    schemaVersion: 1,
    entityType: 'entry',
    entityId,
    occurredAt: new Date().toISOString(),
    actorUserId: randomUUID(),
    organizationId: randomUUID(),
    projectId: randomUUID(),
    payload: {
      entryId: entityId,
      projectId: randomUUID(),
      type: 'bug_report',
      title: `Checkout button does nothing #${i}`,
      description: 'Clicking "Pay" on the checkout page shows a spinner forever.',
      priority: 'high',
      status: 'open',
      number: i,
    },
  };
  const { headers, value } = toKafkaBinary(env);
  const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
  return { key: entityId, value, headers: { traceparent, ...headers } };
}

/** kafkajs: the relay's and the fan-out's settings. */
function kafkajsShaped(kafka: Kafka, newProducer: () => Producer): BenchClient {
  return {
    async producer() {
      const producer = newProducer();
      await producer.connect();
      return {
        async send(topic, messages) {
          await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages }] });
        },
        close: () => producer.disconnect(),
      };
    },
    async consumer(topic, groupId, onBatch) {
      // services/delivery/src/worker.ts and fanout/consumer.ts: the fan-out's settings.
      const consumer = kafka.consumer({
        groupId,
        sessionTimeout: 30_000,
        heartbeatInterval: 1_000,
        maxWaitTimeInMs: FETCH_WAIT_MS,
        minBytes: FETCH_MIN_BYTES,
      });
      const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        partitionsConsumedConcurrently: 3,
        autoCommitInterval: 1000,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
          onBatch(batch.messages.map((m) => ({ headers: m.headers as KafkaHeaders, value: m.value })));
          const last = batch.messages[batch.messages.length - 1];
          if (last) resolveOffset(last.offset);
          await heartbeat();
        },
      });
      await joined;
      return { close: () => consumer.disconnect() };
    },
  };
}

/**
 * What this bench uses of @platformatic/kafka. It is not a dependency of the repository: it wants Node >= 22.22
 * and the project runs on 22.13 and later (test/runtime.test.ts), so install it for a run:
 * `npm install --no-save @platformatic/kafka@2.12.1`.
 */
interface PlatformaticKafka {
  Producer: new (opts: object) => { send(req: { messages: object[] }): Promise<unknown>; close(): Promise<void> };
  Consumer: new (opts: object) => {
    consume(opts: object): Promise<{
      on(event: 'data', listener: (m: { headers: Map<Buffer, Buffer>; value: Buffer }) => void): void;
      close(): Promise<void>;
    }>;
    close(): Promise<void>;
  };
  ProduceAcks: { ALL: number };
  stringSerializers: object;
  MessagesStreamModes: { COMMITTED: string };
  MessagesStreamFallbackModes: { EARLIEST: string };
}
const PLATFORMATIC = '@platformatic/kafka';

async function platformaticClient(): Promise<BenchClient> {
  const { Producer, Consumer, ProduceAcks, stringSerializers, MessagesStreamModes, MessagesStreamFallbackModes } = (await import(
    PLATFORMATIC
  ).catch(() => {
    throw new Error(`${PLATFORMATIC} is not installed: npm install --no-save ${PLATFORMATIC}@2.12.1 (it wants Node >= 22.22)`);
  })) as PlatformaticKafka;
  const base = { clientId: 'bench-platformatic', bootstrapBrokers: BROKERS, retries: 8, retryDelay: 200, connectTimeout: 3000 };
  return {
    async producer() {
      const producer = new Producer({
        ...base,
        idempotent: true,
        acks: ProduceAcks.ALL,
        serializers: stringSerializers,
      });
      return {
        async send(topic, messages) {
          await producer.send({ messages: messages.map((m) => ({ topic, key: m.key, value: m.value, headers: m.headers })) });
        },
        close: () => producer.close(),
      };
    },
    async consumer(topic, groupId, onBatch) {
      const consumer = new Consumer({
        ...base,
        groupId,
        sessionTimeout: 30_000,
        heartbeatInterval: 1_000,
        maxWaitTime: FETCH_WAIT_MS,
        minBytes: FETCH_MIN_BYTES,
      });
      const stream = await consumer.consume({
        topics: [topic],
        mode: MessagesStreamModes.COMMITTED,
        fallbackMode: MessagesStreamFallbackModes.EARLIEST,
        autocommit: 1000,
      });
      // The stream hands over one message at a time; what one read of the stream yields is a batch.
      stream.on('data', (m) => {
        const headers: KafkaHeaders = {};
        for (const [k, v] of m.headers) headers[k.toString()] = v;
        onBatch([{ headers, value: m.value }]);
      });
      return {
        async close() {
          await stream.close();
          await consumer.close();
        },
      };
    },
  };
}

async function clientOf(name: string): Promise<BenchClient> {
  if (name === 'kafkajs') {
    const kafka = createKafka({ brokers: BROKERS, clientId: 'bench-kafkajs' });
    return kafkajsShaped(kafka, () => createProducer(kafka));
  }
  if (name === 'platformatic') return platformaticClient();
  throw new Error(`unknown client ${name}`);
}

async function createTopic(topic: string): Promise<void> {
  const admin = createKafka({ brokers: BROKERS, clientId: 'bench-admin' }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: DOMAIN_EVENT_PARTITIONS }], waitForLeaders: true });
  await admin.disconnect();
}

interface Figures {
  phase: string;
  messages: number;
  seconds: number;
  clientMs: number;
  brokerMs: number;
  p50?: number;
  p99?: number;
}

/** Runs every phase with one client, in this process; prints a RESULT line per phase. */
async function child(name: string): Promise<void> {
  const client = await clientOf(name);
  const tag = `kc-${name}-${randomBytes(4).toString('hex')}`;
  const topic = `${tag}.domain-events`;
  const steadyTopic = `${tag}.steady`;
  await createTopic(topic);
  await createTopic(steadyTopic);
  const meter = cpuMeter([
    ['client', () => [process.pid]],
    ['broker', kafkaBrokerPids],
  ]);
  const report = (f: Omit<Figures, 'clientMs' | 'brokerMs'>, units: number) => {
    const per = meter.measure(units);
    const figures: Figures = { ...f, clientMs: per.get('client')!, brokerMs: per.get('broker')! };
    console.log(`RESULT ${JSON.stringify({ client: name, ...figures })}`);
  };
  const bodies = Array.from({ length: 1000 }, (_, i) => eventMessage(i));
  const producer = await client.producer();

  // Warm-up, unmetered: the JIT of client and broker.
  for (let i = 0; i < 40; i++) await producer.send(topic, bodies.slice(i * 25, i * 25 + 25));
  for (let i = 0; i < 200; i++) await producer.send(topic, [bodies[i]]);
  let written = 1200;

  // 1. produce
  for (const batch of PHASES.has('produce') ? BATCHES : []) {
    const count = batch === 1 ? Math.min(MESSAGES, 5000) : MESSAGES;
    meter.start();
    const t0 = performance.now();
    for (let sent = 0; sent < count; sent += batch) {
      const from = sent % bodies.length;
      await producer.send(topic, bodies.slice(from, from + Math.min(batch, count - sent)));
    }
    const seconds = (performance.now() - t0) / 1000;
    written += count;
    report({ phase: `produce, ${batch} per send`, messages: count, seconds }, count);
  }

  // 2. consume everything written above
  if (PHASES.has('consume')) {
    let seen = 0;
    let decodeFailures = 0;
    let done: () => void = () => {};
    const all = new Promise<void>((resolve) => (done = resolve));
    meter.start();
    const t0 = performance.now();
    const consumer = await client.consumer(topic, `${tag}-consume`, (messages) => {
      for (const m of messages) {
        try {
          eventFromKafkaMessage(m.headers, m.value);
        } catch {
          decodeFailures++;
        }
      }
      seen += messages.length;
      if (seen >= written) done();
    });
    await all;
    const seconds = (performance.now() - t0) / 1000;
    report({ phase: 'consume (new group, from the start)', messages: seen, seconds }, seen);
    if (decodeFailures) throw new Error(`${decodeFailures} messages did not decode`);
    await consumer.close();
  }

  // 3. steady rate, one message per send (or the sends of LINGER_MS gathered), send -> arrival
  if (PHASES.has('steady')) {
    const latencies: number[] = [];
    const consumer = await client.consumer(steadyTopic, `${tag}-steady`, (messages) => {
      const now = performance.timeOrigin + performance.now();
      for (const m of messages) {
        const sentAt = Number(m.headers['sent-at']?.toString());
        if (Number.isFinite(sentAt)) latencies.push(now - sentAt);
      }
    });
    await sleep(1000);
    const total = RATE * RATE_SECONDS;
    meter.start();
    const t0 = performance.now();
    // The relay's loop: one send at a time, each taking what waits (at most one per LINGER_MS).
    const pending: OutgoingMessage[] = [];
    let finished = false;
    let wake: (() => void) | undefined;
    let sends = 0;
    const sender = (async () => {
      let lastStart = -Infinity;
      while (!finished || pending.length) {
        if (!pending.length) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const gap = lastStart + LINGER_MS - performance.now();
        if (gap > 0) await sleep(gap);
        const batch = pending.splice(0);
        lastStart = performance.now();
        sends++;
        await producer.send(steadyTopic, batch);
      }
    })();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const m = bodies[i % bodies.length];
      pending.push({ ...m, headers: { ...m.headers, 'sent-at': String(performance.timeOrigin + performance.now()) } });
      wake?.();
    }
    finished = true;
    wake?.();
    await sender;
    const deadline = Date.now() + 60_000;
    while (latencies.length < total && Date.now() < deadline) await sleep(20);
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    report(
      {
        phase: `steady ${RATE}/s, linger ${LINGER_MS} ms (${(total / sends).toFixed(1)} per send), fetch wait ${FETCH_WAIT_MS} ms, min ${FETCH_MIN_BYTES} B`,
        messages: latencies.length,
        seconds,
        p50: Math.round(pct(latencies, 50) * 10) / 10,
        p99: Math.round(pct(latencies, 99) * 10) / 10,
      },
      total,
    );

    // 4. idle: the same producer and consumer, nothing sent (CPU per second)
    if (PHASES.has('idle')) {
      await sleep(2000);
      meter.start();
      await sleep(IDLE_SECONDS * 1000);
      report({ phase: 'idle (per second)', messages: 0, seconds: IDLE_SECONDS }, IDLE_SECONDS);
    }
    await consumer.close();
  }
  await producer.close();
  const admin = createKafka({ brokers: BROKERS, clientId: 'bench-admin' }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic, steadyTopic] }).catch(() => {});
  await admin.disconnect();
}

/** Runs each client in a child process, one after the other, and prints the figures side by side. */
async function main(): Promise<void> {
  if (!BROKERS.length) throw new Error('set KAFKA_BROKERS to the local broker (host:port)');
  const rows: (Figures & { client: string })[] = [];
  const failed: string[] = [];
  for (const name of CLIENTS) {
    const out = await new Promise<string>((resolve) => {
      const p = spawn(process.execPath, [...process.execArgv, new URL(import.meta.url).pathname], {
        env: { ...process.env, BENCH_KAFKA_CLIENT: name },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      p.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        process.stdout.write(d);
      });
      p.on('exit', (code) => {
        if (code !== 0) failed.push(`${name} (exit ${code}, its error above)`);
        resolve(text);
      });
    });
    for (const line of out.split('\n'))
      if (line.startsWith('RESULT ')) rows.push(JSON.parse(line.slice(7)) as Figures & { client: string });
  }
  console.log(`\n| client | phase | messages/s | client CPU ms/msg | broker CPU ms/msg | p50 / p99 ms |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const r of rows) {
    const idle = r.messages === 0;
    console.log(
      `| ${r.client} | ${r.phase} | ${idle ? '-' : (r.messages / r.seconds).toFixed(0)} | ${r.clientMs.toFixed(idle ? 1 : 3)}${idle ? ' ms/s' : ''} | ${r.brokerMs.toFixed(idle ? 1 : 3)}${idle ? ' ms/s' : ''} | ${r.p50 !== undefined ? `${r.p50} / ${r.p99}` : ''} |`,
    );
  }
  if (failed.length) console.log(`\nnot measured: ${failed.join(', ')}`);
}

if (process.env.BENCH_KAFKA_CLIENT) {
  await child(process.env.BENCH_KAFKA_CLIENT);
  process.exit(0);
} else {
  await main();
}
