import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { toKafkaBinary, type EventEnvelope } from '@cluster/contracts';
import { until } from './support/poll.ts';
import { exited } from './support/processes.ts';

// docs/examples/kafka-consumer.mjs, the consumer docs/events.md shows, run as a reader runs it
// against the real broker: it reads the catalogue's topic (under a prefix of its own here), prints
// each event once (a republished one is dropped by its id), and reads the envelope of older releases too.
const ROOT = path.resolve(import.meta.dirname, '..');
const prefix = `example${randomBytes(4).toString('hex')}.`;
const topic = `${prefix}cluster.domain-events.v1`;
const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map(exited));
});

/** The example with `env`, its stdout and stderr as they come. */
function example(env: Record<string, string>): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [path.join(ROOT, 'docs', 'examples', 'kafka-consumer.mjs')], {
    cwd: ROOT,
    env: { ...process.env, KAFKA_TOPIC_PREFIX: prefix, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { child, stdout: () => out, stderr: () => err };
}

const envelope = (eventName: string, payload: Record<string, unknown>, entityId: string): EventEnvelope => ({
  id: randomUUID(),
  eventName,
  schemaVersion: 1,
  entityType: 'entry',
  entityId,
  occurredAt: new Date().toISOString(),
  actorUserId: null,
  organizationId: randomUUID(),
  projectId: randomUUID(),
  payload,
});

/** The line the example prints for an event. */
const printed = (e: EventEnvelope) => ({
  id: e.id,
  type: e.eventName,
  source: `/organizations/${e.organizationId}`,
  subject: e.entityId,
  time: e.occurredAt,
  dataschema: `urn:cluster:event-schema:${e.eventName}:v1`,
  data: e.payload,
});

describe('the Kafka consumer example of docs/events.md', { timeout: 120_000 }, () => {
  it('prints every event once, CloudEvents and older envelopes alike', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();
    const entityId = randomUUID();
    const created = envelope('entry.created', { title: 'First' }, entityId);
    const updated = envelope('entry.updated', { title: 'Second' }, entityId);
    const producer = kafka.producer();
    await producer.connect();
    // One entity, one partition, in this order: the CloudEvent, it again (republished), then an envelope.
    await producer.send({
      topic,
      messages: [
        { key: entityId, ...toKafkaBinary(created) },
        { key: entityId, ...toKafkaBinary(created) },
        { key: entityId, value: JSON.stringify(updated), headers: { 'event-name': updated.eventName, 'event-id': updated.id } },
      ],
    });
    await producer.disconnect();

    const run = example({ KAFKA_GROUP_ID: `${prefix}reader`, FROM_BEGINNING: 'true' });
    const lines = () => run.stdout().split('\n').filter(Boolean);
    await until(
      async () => lines(),
      (l) => l.length >= 2,
      60_000,
    );
    expect(lines().map((l) => JSON.parse(l))).toEqual([printed(created), printed(updated)]);
    expect(run.stderr()).toContain(`reading ${topic} as group ${prefix}reader`);
  });

  it("refuses the delivery service's consumer group on one line", async () => {
    const run = example({ KAFKA_GROUP_ID: `${prefix}delivery` });
    await exited(run.child);
    expect(run.child.exitCode).toBe(2);
    expect(run.stderr().trim()).toBe(
      `KAFKA_GROUP_ID ${prefix}delivery is the delivery service's group: reading in it takes its events away; choose your own`,
    );
  });
});
