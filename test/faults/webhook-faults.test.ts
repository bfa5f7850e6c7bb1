import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { readCoreConfig, startCore } from '@cluster/core';
import { readDeliveryConfig, startDelivery } from '@cluster/delivery';
import type { Knex } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';
import { dropDatabase, freshDatabaseUrl, requireEnv } from '../support/cluster.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { awaitAll, burst, coreDb, privateBroker, serviceProcess, subscribeViaRpc, type BurstReport } from './support.ts';

// Every event of a 2,000-event burst must reach the receiver at least once while a
// piece of the pipeline is killed mid-stream; a duplicate must carry a delivery id
// the receiver has already seen (so it can de-duplicate). Bounded: each case
// gives up after 120 s of waiting.
const TOTAL = 2000;
const WAIT_MS = 120_000;

const DELIVERY_ENV = {
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LEASE_MS: '3000',
  WEBHOOK_POLL_MS: '250',
  KAFKA_SESSION_TIMEOUT_MS: '6000',
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => {});
});

function setup() {
  const databaseUrl = freshDatabaseUrl('fault');
  const prefix = `f${randomBytes(4).toString('hex')}.`;
  // The in-process delivery service reads these with the rest of its config; a child process is given them.
  Object.assign(process.env, DELIVERY_ENV);
  cleanups.push(() => dropDatabase(databaseUrl));
  return { databaseUrl, prefix };
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanups.push(() => r.close());
  return r;
}

function track<T extends { stop?: () => Promise<void> }>(what: T, stop: () => Promise<void>): T {
  cleanups.push(stop);
  return what;
}

/** Waits (bounded) until the receiver has seen `n` requests, so the strike lands mid-stream. */
async function whenReceived(r: Receiver, n: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (r.received.length < n && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
}

function print(title: string, rep: BurstReport, extra = '') {
  console.log(
    `[fault] ${title}: events=${rep.events} requests=${rep.requests} unique=${rep.uniqueEvents} ` +
      `duplicates=${rep.duplicates} (with a new id: ${rep.duplicatesWithNewId}) lost=${rep.lost}${extra}`,
  );
}

/**
 * Writes a 2,000-event burst; once 800 are written and 200 have arrived, runs
 * `interrupt` once and then `restart`; waits for every event and reports.
 */
async function burstWithInterruption(
  db: Knex,
  org: Parameters<typeof burst>[1],
  r: Receiver,
  interrupt: () => Promise<void>,
  restart: () => Promise<void>,
): Promise<{ rep: BurstReport; extra: string }> {
  let restarted: Promise<void> | undefined;
  let atInterrupt = 0;
  const started = Date.now();
  await burst(db, org, TOTAL, async (written) => {
    if (restarted || written < 800) return;
    await whenReceived(r, 200);
    atInterrupt = r.received.length;
    await interrupt();
    restarted = restart();
  });
  await restarted;
  const rep = await awaitAll(TOTAL, r, WAIT_MS);
  return { rep, extra: ` interruptedAfter=${atInterrupt} seconds=${((Date.now() - started) / 1000).toFixed(1)}` };
}

/**
 * Core in process and delivery as a real process (so that a test can kill it), on a fresh database and
 * topic prefix; a receiver subscribed to user.updated (with `subscription`'s extra fields); the core's
 * schema to write bursts into.
 */
async function coreAndDeliveryProcess(subscription: Record<string, string> = {}) {
  const { brokers } = requireEnv();
  const { databaseUrl, prefix } = setup();
  const core = await startCore({
    ...readCoreConfig(),
    port: 0,
    databaseUrl,
    kafkaBrokers: brokers,
    topicPrefix: prefix,
    relayIdleMs: 50,
  });
  cleanups.push(() => core.shutdown.run('test'));
  const delivery = await serviceProcess('delivery', {
    ...DELIVERY_ENV,
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    CORE_URL: `http://127.0.0.1:${core.port}`,
  });
  track(delivery, () => delivery.stop());
  await delivery.start();
  const r = await receiver();
  const { organizationId: org } = await subscribeViaRpc(
    { deliveryPort: delivery.port, corePort: core.port, databaseUrl },
    r.url,
    ['user.updated'],
    subscription,
  );
  const db: Knex = coreDb(databaseUrl);
  cleanups.push(() => db.destroy());
  return { org, delivery, r, db };
}

/** Core in process, delivery as a real process that `interrupt` stops one way or another mid-burst. */
async function interruptDeliveryMidBurst(interrupt: (delivery: Awaited<ReturnType<typeof serviceProcess>>) => Promise<void>) {
  const { org, delivery, r, db } = await coreAndDeliveryProcess();
  const result = await burstWithInterruption(
    db,
    org,
    r,
    () => interrupt(delivery),
    () => delivery.start(),
  );
  return { ...result, tail: () => delivery.tail() };
}

describe('fault: ordered delivery keeps each entity’s order', () => {
  it('under a flaky receiver and a kill -9 of the delivery service mid-stream: per-entity order, nothing lost', async () => {
    const { org, delivery, r, db } = await coreAndDeliveryProcess({ ordering: 'per_entity' });
    // Every fifth delivery fails its first attempt.
    const seen = new Map<string, number>();
    r.respond((req) => {
      const id = String(req.headers['x-service-delivery-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const seq = (req.body as { payload: { seq: number } }).payload.seq;
      return { status: seq % 5 === 0 && seen.get(id) === 1 ? 500 : 200 };
    });
    // 300 events over 10 entities, in small transactions; the delivery service is killed a third of the way.
    const ENTITIES = Array.from({ length: 10 }, () => randomUUID());
    const TOTAL_ORDERED = 300;
    let killed = false;
    for (let seq = 0; seq < TOTAL_ORDERED; seq += 10) {
      await db.transaction((trx) =>
        commitWrite(trx, 'core', {
          rows: [],
          events: Array.from({ length: 10 }, (_, i) => ({
            eventName: 'user.updated' as const,
            entityType: 'user',
            entityId: ENTITIES[(seq + i) % ENTITIES.length],
            organizationId: org,
            actorUserId: null,
            payload: { seq: seq + i, changedFields: ['role'] },
          })),
        }),
      );
      if (!killed && seq >= 100) {
        await whenReceived(r, 60);
        await delivery.kill9();
        killed = true;
        await delivery.start();
      }
    }
    // Wait until every event has had a successful arrival.
    const deadline = Date.now() + WAIT_MS;
    const succeeded = () => {
      const ok = new Set<number>();
      const counts = new Map<string, number>();
      for (const req of r.received) {
        const id = String(req.headers['x-service-delivery-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
        const seq = (req.body as { payload: { seq: number } }).payload.seq;
        if (!(seq % 5 === 0 && counts.get(id) === 1)) ok.add(seq);
      }
      return ok;
    };
    while (succeeded().size < TOTAL_ORDERED && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    expect(succeeded().size).toBe(TOTAL_ORDERED);
    // Per entity, the first arrival of each event is in commit (seq) order, and so is each event's first success.
    for (const entity of ENTITIES) {
      const mine = r.received.filter((req) => (req.body as { entityId: string }).entityId === entity);
      const firsts = [...new Set(mine.map((req) => (req.body as { payload: { seq: number } }).payload.seq))];
      expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
      expect(firsts).toHaveLength(TOTAL_ORDERED / ENTITIES.length);
    }
    console.log(`[fault] ordered delivery kill -9: events=${TOTAL_ORDERED} requests=${r.received.length}`);
  }, 240_000);
});

describe('fault: webhook delivery loses nothing', () => {
  it('kill -9 of the delivery service mid-burst, then restart', async () => {
    const { rep, extra, tail } = await interruptDeliveryMidBurst((d) => d.kill9());
    print('delivery kill -9', rep, extra);
    if (rep.lost) console.log(tail());
    expect(rep.lost).toBe(0);
    expect(rep.duplicatesWithNewId).toBe(0);
  }, 240_000);

  it('SIGTERM of the delivery service mid-burst (a rolling restart) loses nothing and sends nothing twice', async () => {
    const { rep, extra } = await interruptDeliveryMidBurst((d) => d.stop());
    print('delivery SIGTERM (graceful)', rep, extra);
    expect(rep.lost).toBe(0);
    expect(rep.duplicates).toBe(0);
  }, 240_000);

  it('stop and restart of the Kafka broker mid-burst', async () => {
    const { databaseUrl, prefix } = setup();
    const broker = await privateBroker();
    cleanups.push(async () => {
      await broker.stop();
      broker.remove();
    });
    await broker.start();
    const core = await startCore({
      ...readCoreConfig(),
      port: 0,
      databaseUrl,
      kafkaBrokers: [broker.brokers],
      topicPrefix: prefix,
      relayIdleMs: 50,
    });
    cleanups.push(() => core.shutdown.run('test'));
    const delivery = await startDelivery({
      ...readDeliveryConfig(),
      port: 0,
      databaseUrl,
      kafkaBrokers: [broker.brokers],
      topicPrefix: prefix,
      coreUrl: `http://127.0.0.1:${core.port}`,
    });
    cleanups.push(() => delivery.shutdown.run('test'));
    const r = await receiver();
    const { organizationId: org } = await subscribeViaRpc(
      { deliveryPort: delivery.port, corePort: core.port, databaseUrl },
      r.url,
      ['user.updated'],
    );
    const db: Knex = coreDb(databaseUrl);
    cleanups.push(() => db.destroy());

    const { rep, extra } = await burstWithInterruption(
      db,
      org,
      r,
      () => broker.kill9(),
      async () => {
        await new Promise((res) => setTimeout(res, 2000));
        await broker.start();
      },
    );
    print('broker kill -9 and restart', rep, extra);
    if (rep.lost) {
      const [{ outbox }] = await db('core.outbox').count({ outbox: '*' });
      const [{ deliveries }] = await db('delivery.deliveries').count({ deliveries: '*' });
      const ready = await (await fetch(`http://127.0.0.1:${delivery.port}/readyz`)).text();
      console.log(`[fault] diagnostics: core outbox backlog=${outbox} deliveries=${deliveries} delivery readyz=${ready}`);
    }
    expect(rep.lost).toBe(0);
    expect(rep.duplicatesWithNewId).toBe(0);
  }, 300_000);

  it('kill -9 of the core (its outbox relay) mid-burst, then restart', async () => {
    const { brokers } = requireEnv();
    const { databaseUrl, prefix } = setup();
    const core = await serviceProcess('core', {
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      OUTBOX_RELAY_IDLE_MS: '50',
    });
    track(core, () => core.stop());
    await core.start();
    const delivery = await startDelivery({
      ...readDeliveryConfig(),
      port: 0,
      databaseUrl,
      kafkaBrokers: brokers,
      topicPrefix: prefix,
      coreUrl: `http://127.0.0.1:${core.port}`,
    });
    cleanups.push(() => delivery.shutdown.run('test'));
    const r = await receiver();
    const { organizationId: org } = await subscribeViaRpc(
      { deliveryPort: delivery.port, corePort: core.port, databaseUrl },
      r.url,
      ['user.updated'],
    );
    const db: Knex = coreDb(databaseUrl);
    cleanups.push(() => db.destroy());

    const { rep, extra } = await burstWithInterruption(
      db,
      org,
      r,
      () => core.kill9(),
      () => core.start(),
    );
    print('core (outbox relay) kill -9', rep, extra);
    if (rep.lost) console.log(core.tail());
    expect(rep.lost).toBe(0);
    expect(rep.duplicatesWithNewId).toBe(0);
  }, 240_000);
});
