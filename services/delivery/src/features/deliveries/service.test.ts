import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFakeStores, type FakeStores } from '../../fake-stores.ts';
import { failure, OTHER_ORG, testActor as actor, testSubscription } from '../../shared/test-fixtures.ts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import { createDeliveryService } from './service.ts';

function subscription(stores: FakeStores, over: Partial<SubscriptionRow> = {}): SubscriptionRow {
  const row = testSubscription(over);
  stores.subscriptions.rows.push(row);
  return row;
}

/** Inserts `n` deliveries of a subscription, one millisecond apart, and returns their ids, oldest first. */
async function deliveries(stores: FakeStores, sub: SubscriptionRow, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    await stores.deliveryQueue.insertMany([
      {
        id,
        organizationId: sub.organizationId,
        subscriptionId: sub.id,
        eventId: randomUUID(),
        eventName: 'entry.created',
        body: `{"n":${i}}`,
      },
    ]);
    stores.deliveryQueue.rows.at(-1)!.createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i));
    ids.push(id);
  }
  return ids;
}

describe('delivery records (fake stores)', () => {
  it("lists a subscription's deliveries newest first, pages them, and filters by status", async () => {
    const stores = createFakeStores();
    const service = createDeliveryService(stores);
    const sub = subscription(stores);
    const ids = await deliveries(stores, sub, 5);
    await deliveries(stores, subscription(stores), 2); // another subscription's
    stores.deliveryQueue.rows.find((r) => r.id === ids[1])!.status = 'dead_letter';

    const first = await service.list(actor(), sub.id, {}, { page: 1, pageSize: 2 });
    expect(first).toMatchObject({ page: 1, pageSize: 2, total: 5 });
    expect(first.data.map((d) => d.id)).toEqual([ids[4], ids[3]]);
    const last = await service.list(actor(), sub.id, {}, { page: 3, pageSize: 2 });
    expect(last.data.map((d) => d.id)).toEqual([ids[0]]);

    const dead = await service.list(actor(), sub.id, { status: 'dead_letter' }, { page: 1, pageSize: 25 });
    expect(dead).toMatchObject({ total: 1, data: [expect.objectContaining({ id: ids[1], status: 'dead_letter' })] });
    // A non-string filter is no filter.
    expect((await service.list(actor(), sub.id, { status: 3 }, { page: 1, pageSize: 25 })).total).toBe(5);
  });

  it('shows the record fields only (never the body or the lease), with the attempt log on a get', async () => {
    const stores = createFakeStores();
    const service = createDeliveryService(stores);
    const sub = subscription(stores);
    const [id] = await deliveries(stores, sub, 1);
    const {
      deliveries: [claimed],
    } = await stores.deliveryQueue.claim({ limit: 1, leaseMs: 60_000, defaultCap: 10, caps: new Map() });
    const attemptedAt = new Date('2026-01-01T00:00:01.000Z');
    await stores.attempts.recordAttempt({
      delivery: claimed,
      attemptedAt,
      decision: { kind: 'retry', at: new Date('2026-01-01T00:00:06.000Z') },
      result: { ok: false, responseCode: 503, responseBody: 'busy', error: 'HTTP 503', durationMs: 12 },
    });

    const [listed] = (await service.list(actor(), sub.id, {}, { page: 1, pageSize: 25 })).data;
    expect(Object.keys(listed).sort()).toEqual([
      'attempts',
      'createdAt',
      'durationMs',
      'error',
      'eventId',
      'eventName',
      'id',
      'nextAttemptAt',
      'responseBody',
      'responseCode',
      'status',
      'subscriptionId',
      'updatedAt',
    ]);
    const got = await service.get(actor(), sub.id, id);
    expect(got).toMatchObject({
      id,
      status: 'failed',
      attempts: 1,
      responseCode: 503,
      nextAttemptAt: '2026-01-01T00:00:06.000Z',
      attemptLog: [
        {
          attempt: 1,
          outcome: 'failed',
          responseCode: 503,
          responseBody: 'busy',
          error: 'HTTP 503',
          durationMs: 12,
          attemptedAt: '2026-01-01T00:00:01.000Z',
        },
      ],
    });
    expect(got).not.toHaveProperty('body');
    expect(got).not.toHaveProperty('leaseToken');
  });

  it("answers 404 for another organization's, a deleted or an unknown subscription, and for a delivery of another subscription", async () => {
    const stores = createFakeStores();
    const service = createDeliveryService(stores);
    const foreign = subscription(stores, { organizationId: OTHER_ORG });
    const deleted = subscription(stores, { deletedAt: new Date(), enabled: false });
    const mine = subscription(stores);
    const other = subscription(stores);
    const [foreignDelivery] = await deliveries(stores, foreign, 1);
    const [otherDelivery] = await deliveries(stores, other, 1);
    await deliveries(stores, deleted, 1);
    const page = { page: 1, pageSize: 25 };
    for (const id of [foreign.id, deleted.id, randomUUID(), 'not-a-uuid']) {
      expect(await failure(service.list(actor(), id, {}, page))).toMatchObject({
        reason: 'not_found',
        message: 'webhook not found',
      });
    }
    expect(await failure(service.get(actor(), foreign.id, foreignDelivery))).toMatchObject({ message: 'webhook not found' });
    expect(await failure(service.get(actor(), mine.id, otherDelivery))).toMatchObject({ message: 'delivery not found' });
    expect(await failure(service.get(actor(), mine.id, 'not-a-uuid'))).toMatchObject({ message: 'delivery not found' });
  });

  it("searches the organization's live subscriptions and counts what did not arrive, by subscription", async () => {
    const stores = createFakeStores();
    const service = createDeliveryService(stores);
    const [a, b, gone] = [subscription(stores), subscription(stores), subscription(stores, { deletedAt: new Date() })];
    const foreign = subscription(stores, { organizationId: OTHER_ORG });
    const idsA = await deliveries(stores, a, 3);
    const [idB] = await deliveries(stores, b, 1);
    await deliveries(stores, gone, 1);
    await deliveries(stores, foreign, 1);
    const row = (id: string) => stores.deliveryQueue.rows.find((r) => r.id === id)!;
    row(idsA[0]).status = 'dead_letter';
    row(idsA[1]).status = 'failed';
    row(idsA[2]).status = 'succeeded';
    for (const [i, id] of idsA.entries()) row(id).createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, i * 10));
    row(idB).createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, 5));
    const page = { page: 1, pageSize: 25 };
    const found = await service.search(actor(), {}, page);
    expect(found.data.map((d) => d.id)).toEqual([idsA[2], idsA[1], idB, idsA[0]]);
    expect((await service.search(actor(), { status: 'failed' }, page)).data.map((d) => d.id)).toEqual([idsA[1]]);
    expect((await service.search(actor(), { subscriptionId: b.id }, page)).data.map((d) => d.id)).toEqual([idB]);
    const second = row(idsA[1]).createdAt.toISOString();
    expect((await service.search(actor(), { until: second }, page)).data.map((d) => d.id)).toEqual([idB, idsA[0]]);

    expect(await service.summary(actor(), {})).toEqual({
      since: null,
      until: null,
      undelivered: { total: 3, pending: 1, failed: 1, dead_letter: 1, oldestCreatedAt: row(idsA[0]).createdAt.toISOString() },
      subscriptions: [
        {
          subscriptionId: a.id,
          total: 2,
          pending: 0,
          failed: 1,
          dead_letter: 1,
          oldestCreatedAt: row(idsA[0]).createdAt.toISOString(),
        },
        {
          subscriptionId: b.id,
          total: 1,
          pending: 1,
          failed: 0,
          dead_letter: 0,
          oldestCreatedAt: row(idB).createdAt.toISOString(),
        },
      ],
    });
    expect(await service.summary(actor(), { since: second })).toMatchObject({
      since: second,
      undelivered: { total: 1, failed: 1, pending: 0 },
    });

    for (const id of [foreign.id, gone.id, randomUUID()]) {
      expect(await failure(service.search(actor(), { subscriptionId: id }, page))).toMatchObject({ reason: 'not_found' });
      expect(await failure(service.summary(actor(), { subscriptionId: id }))).toMatchObject({ reason: 'not_found' });
    }
    const upsideDown = { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' };
    for (const call of [
      service.search(actor(), upsideDown, page),
      service.summary(actor(), upsideDown),
      service.list(actor(), a.id, upsideDown, page),
    ]) {
      expect(await failure(call)).toMatchObject({
        reason: 'validation_error',
        details: { errors: [{ path: 'until', message: 'must be later than since' }] },
      });
    }
  });
});

describe('delivery statistics (fake stores)', () => {
  it('cut the window in whole hours of the clock, the current one last, with its series', async () => {
    const now = new Date('2026-01-01T10:20:00.000Z');
    const stores = createFakeStores(() => now);
    const service = createDeliveryService(stores, { clock: () => now });
    const sub = subscription(stores);
    const [before, first, last] = await deliveries(stores, sub, 3);
    const row = (id: string) => stores.deliveryQueue.rows.find((r) => r.id === id)!;
    row(before).createdAt = new Date('2025-12-31T10:59:59.999Z'); // the hour before the window
    row(first).createdAt = new Date('2025-12-31T11:00:00.000Z'); // the window's first instant
    row(last).createdAt = new Date('2026-01-01T10:05:00.000Z'); // this hour
    for (const id of [before, first, last]) row(id).status = 'succeeded';
    const day = await service.stats(actor(), sub.id, {});
    expect(day).toMatchObject({ since: '2025-12-31T11:00:00.000Z', deliveries: { total: 2, succeeded: 2 } });
    const points = (day.series as { points: { start: string; delivered: number }[] }).points;
    expect(points).toHaveLength(24);
    expect([points[0].start, points[0].delivered, points[23].start, points[23].delivered]).toEqual([
      '2025-12-31T11:00:00.000Z',
      1,
      '2026-01-01T10:00:00.000Z',
      1,
    ]);
    const week = await service.stats(actor(), sub.id, { window: '7d' });
    expect(week).toMatchObject({ since: '2025-12-25T11:00:00.000Z', deliveries: { total: 3 } });
    const days = (week.series as { points: { start: string; delivered: number }[] }).points;
    expect(days.map((p) => p.delivered)).toEqual([0, 0, 0, 0, 0, 1, 2]);
    expect(days[6].start).toBe('2025-12-31T11:00:00.000Z');
  });
});
