import { verify } from '@cluster/webhook-verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './cluster.ts';
import { until } from './poll.ts';

/** One message as a broker destination's consumer read it. */
export interface BrokerMessage {
  body: string;
  headers: Record<string, string>;
  /** Kafka's key, SQS's MessageGroupId, or null. */
  key: string | null;
  /** Kafka's partition. */
  partition?: number;
  /** AMQP's messageId, SQS's MessageId. */
  messageId?: string;
}

/** A real broker the delivery service sends to, as a test drives it (test/webhook-destination-*.test.ts). */
export interface BrokerUnderTest {
  type: 'kafka' | 'amqp' | 'sqs';
  /** Starts the broker (or its consumer); called once before the cluster. */
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A destination body that reaches the running broker. */
  destination(): Record<string, unknown>;
  /** A destination body of this type whose broker is a closed port on loopback. */
  unreachable(): Record<string, unknown>;
  /** Every message read so far (reads what arrived since the last call). */
  collect(): Promise<BrokerMessage[]>;
  /** Stops and starts the broker process by its PID, when the test owns it. */
  restart?: { stop(): Promise<void>; start(): Promise<void> };
  /** Values of the destination that are secrets: no answer may show them. */
  secrets: string[];
}

/** The retry schedule of these tests: short, so a dead letter comes after ~15 s (as webhooks.test.ts shortens it). */
export const DESTINATION_TEST_ENV = {
  WEBHOOK_RETRY_BASE_MS: '250',
  WEBHOOK_RETRY_MAX_STEP_MS: '1000',
  WEBHOOK_RETRY_MAX_AGE_MS: '15000',
  // The sweep that releases an ordered delivery whose turn a race with the fan-out missed (its insert
  // committing while the one before it was recorded: features/deliveries/ordered-release.ts) runs at this
  // interval, 60 s by default; the ordering cases here would otherwise wait for it.
  WEBHOOK_HEALTH_SWEEP_MS: '1000',
};

type Delivery = { id: string; status: string; attempts: number; error: string | null };

/**
 * The guarantees every destination type keeps (docs/webhooks.md, "Destinations"), against a real broker: the
 * body and a verifiable signature; retries while the broker is away and every event once it is back (none
 * lost); dead letters after the schedule, then redeliver and recover; statistics. `more` adds a type's own cases.
 */
export function destinationScenarios(broker: BrokerUnderTest, more?: (ctx: () => ScenarioContext) => void): void {
  let c: TestCluster;
  const ctx: ScenarioContext = {
    get cluster() {
      return c;
    },
    subscribe: async (org, destination, extra = {}) => {
      const res = await c.api(org.key, 'POST', '/webhooks', { destination, eventNames: ['entry.*'], ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      for (const s of broker.secrets) expect(JSON.stringify(res.body)).not.toContain(s);
      return { id: res.body.id as string, secret: res.body.hmacSecret as string };
    },
    entry: async (org, title) => {
      const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
        title,
        description: '-',
        type: 'feedback',
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    },
    deliveries: async (org, hookId) =>
      (await c.api(org.key, 'GET', `/webhooks/${hookId}/deliveries?limit=100`)).body.data as Delivery[],
    arrived: async (entityIds, timeoutMs = 30_000) => {
      const about = (m: BrokerMessage) => entityIds.includes(String(JSON.parse(m.body).entityId));
      const all = await until(
        async () => (await broker.collect()).filter(about),
        (got) => entityIds.every((id) => got.some((m) => JSON.parse(m.body).entityId === id)),
        timeoutMs,
      );
      return all;
    },
  };

  beforeAll(async () => {
    await broker.setup();
    c = await startTestCluster({ env: DESTINATION_TEST_ENV });
  }, 180_000);
  afterAll(async () => {
    await c?.stop();
    await broker.teardown();
  }, 60_000);

  describe(`${broker.type} destination`, () => {
    it('delivers the event body with a signature that verifies; credentials are masked; statistics count it', async () => {
      const org = await c.seedOrg(`${broker.type} delivered`);
      const { id, secret } = await ctx.subscribe(org, broker.destination());
      const entityId = await ctx.entry(org, 'first');
      const [m] = await ctx.arrived([entityId]);
      const verified = verify(m.body, m.headers, secret);
      expect(verified.id).toBe(m.headers['webhook-id']);
      const body = JSON.parse(m.body);
      expect(body).toMatchObject({ id: m.headers['webhook-id'], eventName: 'entry.created', entityId, schemaVersion: 1 });
      expect(m.headers['x-service-event']).toBe('entry.created');
      expect(m.headers['content-type']).toBe('application/json');

      const shown = await c.api(org.key, 'GET', `/webhooks/${id}`);
      expect(shown.body.destination.type).toBe(broker.type);
      for (const s of broker.secrets) expect(JSON.stringify(shown.body)).not.toContain(s);
      const [delivery] = await until(
        () => ctx.deliveries(org, id),
        (d) => d[0]?.status === 'succeeded',
      );
      expect(delivery).toMatchObject({ id: m.headers['webhook-id'], status: 'succeeded', attempts: 1 });
      const stats = await c.api(org.key, 'GET', `/webhooks/${id}/stats`);
      expect(stats.body.deliveries).toMatchObject({ total: 1, succeeded: 1 });
    });

    it('retries while the broker is away, then delivers every event once it is back: none lost', async () => {
      const org = await c.seedOrg(`${broker.type} retries`);
      const reachable = broker.destination();
      const { id, secret } = broker.restart
        ? await ctx.subscribe(org, reachable)
        : await ctx.subscribe(org, broker.unreachable());
      if (broker.restart) await broker.restart.stop();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await ctx.entry(org, `away ${i}`));
      const failing = await until(
        () => ctx.deliveries(org, id),
        (d) => d.length === 5 && d.every((x) => x.status === 'failed' && x.attempts >= 2),
        20_000,
      );
      expect(failing.map((d) => d.status)).toEqual(Array(5).fill('failed'));
      expect(failing[0].error).toMatch(new RegExp(broker.type));
      // Back: the broker restarted (same port), or the subscription pointed at it.
      if (broker.restart) await broker.restart.start();
      else expect((await c.api(org.key, 'PATCH', `/webhooks/${id}`, { destination: reachable })).status).toBe(200);
      const got = await ctx.arrived(ids, 40_000);
      for (const m of got) expect(verify(m.body, m.headers, secret).id).toBe(m.headers['webhook-id']);
      const done = await until(
        () => ctx.deliveries(org, id),
        (d) => d.every((x) => x.status === 'succeeded'),
      );
      expect(done.map((d) => d.status)).toEqual(Array(5).fill('succeeded'));
      expect(new Set(got.map((m) => JSON.parse(m.body).entityId))).toEqual(new Set(ids));
      // Each delivery's messages carry its id; a repeat (at least once) carries the same one.
      expect(new Set(got.map((m) => m.headers['webhook-id']))).toEqual(new Set(done.map((d) => d.id)));
    }, 90_000);

    it('dead-letters after the retry schedule; redeliver and recover send them again', async () => {
      const org = await c.seedOrg(`${broker.type} dead letters`);
      const { id } = await ctx.subscribe(org, broker.unreachable());
      const ids = [await ctx.entry(org, 'lost 1'), await ctx.entry(org, 'lost 2'), await ctx.entry(org, 'lost 3')];
      const dead = await until(
        () => ctx.deliveries(org, id),
        (d) => d.length === 3 && d.every((x) => x.status === 'dead_letter'),
        40_000,
      );
      expect(dead.map((d) => d.status)).toEqual(Array(3).fill('dead_letter'));
      expect((await c.api(org.key, 'PATCH', `/webhooks/${id}`, { destination: broker.destination() })).status).toBe(200);

      const redelivered = await c.api(org.key, 'POST', `/webhooks/${id}/deliveries/${dead[0].id}/redeliver`);
      expect(redelivered.status).toBe(200);
      expect(redelivered.body).toMatchObject({ id: dead[0].id, status: 'succeeded', attempts: dead[0].attempts + 1 });
      const recovery = await c.api(org.key, 'POST', `/webhooks/${id}/recover`, {
        since: new Date(Date.now() - 600_000).toISOString(),
      });
      expect(recovery.status, JSON.stringify(recovery.body)).toBe(202);
      const got = await ctx.arrived(ids, 40_000);
      expect(new Set(got.map((m) => m.headers['webhook-id']))).toEqual(new Set(dead.map((d) => d.id)));
      const done = await until(
        () => ctx.deliveries(org, id),
        (d) => d.every((x) => x.status === 'succeeded'),
      );
      expect(done.map((d) => d.status)).toEqual(Array(3).fill('succeeded'));
    }, 90_000);

    more?.(() => ctx);
  });
}

/** What a type's own cases use. */
export interface ScenarioContext {
  readonly cluster: TestCluster;
  subscribe(
    org: SeededOrg,
    destination: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ): Promise<{ id: string; secret: string }>;
  entry(org: SeededOrg, title: string): Promise<string>;
  deliveries(org: SeededOrg, hookId: string): Promise<Delivery[]>;
  /** The messages about these entities, once each has arrived at least once. */
  arrived(entityIds: string[], timeoutMs?: number): Promise<BrokerMessage[]>;
}
