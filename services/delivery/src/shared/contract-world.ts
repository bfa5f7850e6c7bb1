// For the store contract tests only (*.contract.test.ts): the delivery stores as a fake and in Postgres.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from '@cluster/db';
import { truncateSchema } from '@cluster/db/store-contract';
import { createFakeStores } from '../fake-stores.ts';
import type { AttemptRecord } from '../features/attempts/store.ts';
import type { ClaimedDelivery, NewDelivery } from '../features/deliveries/queue-store.ts';
import type { DeliveryRow } from '../features/deliveries/rows.ts';
import { rebuildStatsRollup } from '../features/deliveries/stats-rollup.ts';
import type { RecoveryRow } from '../features/recovery/store.ts';
import type { NewSubscription, SubscriptionRow } from '../features/subscriptions/store.ts';
import { createStores, type Stores } from '../stores.ts';
import { ORG } from './test-fixtures.ts';

/**
 * What a contract case gets: every store of the delivery service (fake or Postgres) and their
 * `transaction` (the fake's neither isolates nor locks), and the means to arrange what no store
 * method sets (due times, leases, creation times) and to read a row back whole.
 */
export interface DeliveryWorld {
  stores: Omit<Stores, 'record'>;
  patchDelivery(id: string, values: Partial<DeliveryRow>): Promise<void>;
  delivery(id: string): Promise<DeliveryRow | undefined>;
  patchSubscription(id: string, values: Partial<SubscriptionRow>): Promise<void>;
  patchRecovery(id: string, values: Partial<RecoveryRow>): Promise<void>;
}

/** The fake world of every delivery store contract (fake-stores.ts). */
export async function fakeDeliveryWorld(): Promise<DeliveryWorld> {
  const stores = createFakeStores();
  const find = <T extends { id: string }>(rows: T[], id: string) => {
    const row = rows.find((r) => r.id === id);
    if (!row) throw new Error(`fake world: no row ${id}`);
    return row;
  };
  return {
    stores,
    async patchDelivery(id, values) {
      Object.assign(find(stores.deliveryQueue.rows, id), values);
    },
    async delivery(id) {
      const row = stores.deliveryQueue.rows.find((r) => r.id === id);
      return row && { ...row };
    },
    async patchSubscription(id, values) {
      Object.assign(find(stores.subscriptions.rows, id), values);
    },
    async patchRecovery(id, values) {
      Object.assign(find(stores.recovery.rows, id), values);
    },
  };
}

/** The Postgres world of every delivery store contract (stores.ts), over an emptied schema: its cases read whole tables. */
export async function postgresDeliveryWorld(db: Knex): Promise<DeliveryWorld> {
  await truncateSchema(db, 'delivery');
  return {
    stores: createStores(db),
    async patchDelivery(id, values) {
      await db<DeliveryRow>('delivery.deliveries').where({ id }).update(values);
      // A creation time or status set by hand, as no statement sets it: the subscription's statistics rollup
      // is written again from the tables, so it holds what the statements would have kept.
      if (['createdAt', 'status', 'test'].some((k) => k in values)) {
        const row = await db<DeliveryRow>('delivery.deliveries').where({ id }).first('subscriptionId');
        if (row) await rebuildStatsRollup(db, null, row.subscriptionId);
      }
    },
    async delivery(id) {
      return db<DeliveryRow>('delivery.deliveries').where({ id }).first();
    },
    async patchSubscription(id, values) {
      await db<SubscriptionRow>('delivery.subscriptions').where({ id }).update(values);
    },
    async patchRecovery(id, values) {
      await db<RecoveryRow>('delivery.recoveries').where({ id }).update(values);
    },
  };
}

/** A time `ms` from now (negative: in the past). */
export const fromNow = (ms: number): Date => new Date(Date.now() + ms);

/** Minutes, in milliseconds. */
export const MIN = 60_000;

/** Inserts a live, enabled subscription of ORG (destination `origin`), for `entry.created`. */
export async function addSubscription(
  world: DeliveryWorld,
  over: Partial<NewSubscription> = {},
  origin = 'https://r.example.com:443',
): Promise<SubscriptionRow> {
  return world.stores.subscriptions.insert({
    id: randomUUID(),
    organizationId: ORG,
    destinationUrl: `${origin}/in`,
    destinationOrigin: origin,
    eventNames: ['entry.created'],
    enabled: true,
    description: null,
    ordering: 'none',
    signatureScheme: 'hmac-sha256',
    publicKey: null,
    secretSealed: 'sealed',
    createdByUserId: null,
    ...over,
  });
}

/** A new delivery of `sub` (a fresh event). */
export function newDelivery(sub: Pick<SubscriptionRow, 'id' | 'organizationId'>, over: Partial<NewDelivery> = {}): NewDelivery {
  return {
    id: randomUUID(),
    organizationId: sub.organizationId,
    subscriptionId: sub.id,
    eventId: randomUUID(),
    eventName: 'entry.created',
    body: '{"x":1}',
    ...over,
  };
}

/** Inserts deliveries of `sub` due at these offsets from now (null: nothing scheduled); returns their ids in order. */
export async function addDue(world: DeliveryWorld, sub: SubscriptionRow, dueInMs: (number | null)[]): Promise<string[]> {
  const rows = dueInMs.map(() => newDelivery(sub));
  await world.stores.deliveryQueue.insertMany(rows);
  for (const [i, ms] of dueInMs.entries()) {
    await world.patchDelivery(rows[i].id, { nextAttemptAt: ms === null ? null : fromNow(ms) });
  }
  return rows.map((r) => r.id);
}

/** Claims with generous bounds unless told otherwise; returns the claimed ids, sorted (a claim has no order). */
export async function claimIds(
  world: DeliveryWorld,
  args: Partial<{ limit: number; leaseMs: number; defaultCap: number; caps: Map<string, number> }> = {},
): Promise<string[]> {
  const { deliveries } = await world.stores.deliveryQueue.claim({
    limit: 10,
    leaseMs: MIN,
    defaultCap: 10,
    caps: new Map(),
    ...args,
  });
  return deliveries.map((d) => d.id).sort();
}

/** The attempt a sender made of a claimed delivery, with its outcome and decision. */
export function attemptOf(
  delivery: ClaimedDelivery,
  ok: boolean,
  decision: AttemptRecord['decision'],
  over: { durationMs?: number; attemptedAt?: Date } = {},
): AttemptRecord {
  return {
    delivery,
    result: {
      ok,
      responseCode: ok ? 200 : 500,
      responseBody: ok ? 'ok' : 'boom',
      error: ok ? null : 'HTTP 500',
      durationMs: over.durationMs ?? 10,
    },
    attemptedAt: over.attemptedAt ?? new Date(),
    decision,
  };
}

/** How long the first transaction of lockTurns holds its lock for a second that waits on it. */
const BLOCKED_MS = 1500;

/**
 * Runs `take` in a transaction that then holds on, and `takeToo` in a second one begun once the first
 * has taken: answers which ended first. A lock held until the end of the transaction gives
 * ['first ended', 'second took']; no lock (or another one), ['second took', 'first ended'].
 */
export async function lockTurns(
  world: DeliveryWorld,
  take: (tx: Stores) => Promise<unknown>,
  takeToo: (tx: Stores) => Promise<unknown> = take,
): Promise<string[]> {
  const turns: string[] = [];
  let taken: () => void = () => {};
  const held = new Promise<void>((resolve) => (taken = resolve));
  let secondTook: () => void = () => {};
  const tookToo = new Promise<void>((resolve) => (secondTook = resolve));
  const first = world.stores.transaction(async (tx) => {
    await take(tx);
    taken();
    // Held until the second has taken its lock (it did not wait), or for BLOCKED_MS (it waits on ours):
    // a second that does not wait is seen as such however slow the machine, and one that waits is let go.
    await Promise.race([tookToo, sleep(BLOCKED_MS)]);
    turns.push('first ended');
  });
  await held;
  const second = world.stores.transaction(async (tx) => {
    await takeToo(tx);
    turns.push('second took');
    secondTook();
  });
  await Promise.all([first, second]);
  return turns;
}
