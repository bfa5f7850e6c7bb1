import { randomUUID } from 'node:crypto';
import { DELIVERY_FIELDS } from '@cluster/contracts';
import { fakePage } from '@cluster/db/test-kit';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { ClaimedDelivery, DeliveryRecord, DeliveryStore } from './store.ts';

/** A delivery row of the fake: the record plus what the schedule keeps. */
export type FakeDeliveryRow = DeliveryRecord & {
  organizationId: string;
  body: string;
  test: boolean;
  firstAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lockedUntil: Date | null;
  leaseToken: string | null;
};

/**
 * An in-memory DeliveryStore for unit tests (no Postgres), over the fake
 * subscriptions' rows (a claim reads their destination and state). `notified`
 * collects the notifier of every insert that left a delivery free to claim.
 */
export function createFakeDeliveryStore(
  subscriptions: SubscriptionRow[],
  rows: FakeDeliveryRow[] = [],
  clock: () => Date = () => new Date(),
): DeliveryStore & { rows: FakeDeliveryRow[]; notified: string[] } {
  const notified: string[] = [];
  const record = (r: FakeDeliveryRow): DeliveryRecord => {
    const out: Record<string, unknown> = {};
    for (const f of DELIVERY_FIELDS) out[f] = r[f];
    return out as DeliveryRecord;
  };
  const unleased = (r: FakeDeliveryRow, now: Date) => !r.lockedUntil || r.lockedUntil < now;
  const scheduled = (r: FakeDeliveryRow) => r.nextAttemptAt !== null;
  return {
    rows,
    notified,
    async insertMany(news, opts = {}) {
      const now = clock();
      const inserted = new Set<string>();
      let free = 0;
      for (const n of news) {
        if (rows.some((r) => r.id === n.id)) continue;
        const test = n.test ?? false;
        rows.push({
          id: n.id,
          organizationId: n.organizationId,
          subscriptionId: n.subscriptionId,
          eventId: n.eventId,
          eventName: n.eventName,
          body: n.body,
          test,
          status: 'pending',
          attempts: 0,
          responseCode: null,
          responseBody: null,
          error: null,
          durationMs: null,
          nextAttemptAt: test ? null : now,
          firstAttemptAt: null,
          lastAttemptAt: null,
          leaseToken: n.leaseToken ?? null,
          lockedUntil: n.leaseToken && !test ? new Date(now.getTime() + (opts.leaseMs ?? 0)) : null,
          createdAt: now,
          updatedAt: now,
        });
        inserted.add(n.id);
        if (!n.leaseToken) free++;
      }
      if (free) notified.push(opts.notifier ?? '');
      return inserted;
    },
    async claim({ limit, leaseMs, defaultCap, caps }) {
      if (limit <= 0) return { deliveries: [], more: false };
      const now = clock();
      const subOf = (r: FakeDeliveryRow) => subscriptions.find((s) => s.id === r.subscriptionId);
      const due = rows
        .filter((r) => r.nextAttemptAt && r.nextAttemptAt <= now && unleased(r, now))
        .sort((a, b) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime());
      const taken: ClaimedDelivery[] = [];
      const perOrigin = new Map<string, number>();
      let eligible = 0;
      for (const r of due) {
        const s = subOf(r);
        if (!s || !s.enabled || s.deletedAt) {
          // Written while its subscription was being disabled or deleted: stopped.
          Object.assign(r, {
            nextAttemptAt: null,
            status: 'failed',
            error: 'retries stopped: subscription disabled or deleted',
            updatedAt: now,
          });
          continue;
        }
        const n = perOrigin.get(s.destinationOrigin) ?? 0;
        if (n >= (caps.get(s.destinationOrigin) ?? defaultCap)) continue;
        eligible++;
        if (taken.length >= limit) continue;
        perOrigin.set(s.destinationOrigin, n + 1);
        Object.assign(r, { lockedUntil: new Date(now.getTime() + leaseMs), leaseToken: randomUUID() });
        taken.push({
          id: r.id,
          organizationId: r.organizationId,
          subscriptionId: r.subscriptionId,
          eventName: r.eventName,
          body: r.body,
          attempts: r.attempts,
          firstAttemptAt: r.firstAttemptAt,
          leaseToken: r.leaseToken!,
          destinationUrl: s.destinationUrl,
          destinationOrigin: s.destinationOrigin,
          secretSealed: s.secretSealed,
          previousSecretSealed: s.previousSecretSealed ?? null,
          previousSecretUntil: s.previousSecretUntil ?? null,
          traceparent: (r as { traceparent?: string | null }).traceparent ?? null,
        });
      }
      return { deliveries: taken, more: eligible > taken.length };
    },
    async nextDueAt() {
      const now = clock().getTime();
      const future = rows.map((r) => r.nextAttemptAt?.getTime() ?? 0).filter((t) => t > now);
      return future.length ? new Date(Math.min(...future)) : null;
    },
    async release(claims) {
      for (const c of claims) {
        const r = rows.find((x) => x.id === c.id && x.leaseToken === c.leaseToken);
        if (r) Object.assign(r, { lockedUntil: null, leaseToken: null });
      }
    },
    async pruneFinished(subscriptionId, before, limit) {
      const now = clock();
      const gone = rows
        .filter((r) => r.subscriptionId === subscriptionId && r.createdAt < before && !scheduled(r) && unleased(r, now))
        .slice(0, limit);
      for (const r of gone) rows.splice(rows.indexOf(r), 1);
      return gone.length;
    },
    async stopPending(subscriptionId, reason) {
      const stopped = rows.filter((r) => r.subscriptionId === subscriptionId && scheduled(r));
      for (const r of stopped) Object.assign(r, { nextAttemptAt: null, status: 'failed', error: reason, updatedAt: clock() });
      return stopped.length;
    },
    async list(organizationId, subscriptionId, filter, page) {
      const mine = rows.filter(
        (r) =>
          r.organizationId === organizationId &&
          r.subscriptionId === subscriptionId &&
          (filter.status === undefined || r.status === filter.status),
      );
      return fakePage(mine.map(record), page);
    },
    async find(organizationId, subscriptionId, id) {
      const r = rows.find((x) => x.id === id && x.subscriptionId === subscriptionId && x.organizationId === organizationId);
      return r && record(r);
    },
    /** By status from the rows; this fake keeps no attempt log (attempts/fake-store.ts does), so no attempt figures. */
    async stats(subscriptionId, since) {
      const byStatus: Record<string, number> = {};
      for (const r of rows) {
        if (r.subscriptionId !== subscriptionId || r.test || r.createdAt < since) continue;
        byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      }
      return {
        byStatus,
        attempts: { total: 0, succeeded: 0, failed: 0, p50: null, p95: null },
        lastSuccessAt: null,
        lastFailureAt: null,
      };
    },
    async releaseWaiting() {
      return 0;
    },
    async countScheduled(status) {
      return rows.filter((r) => r.status === status && scheduled(r)).length;
    },
    async oldestScheduledAt() {
      const times = rows.filter(scheduled).map((r) => r.createdAt.getTime());
      return times.length ? new Date(Math.min(...times)) : null;
    },
    async oldestUnservedDueAt() {
      const now = clock();
      const originOf = (r: FakeDeliveryRow) => {
        const s = subscriptions.find((x) => x.id === r.subscriptionId);
        return s?.enabled && !s.deletedAt ? s.destinationOrigin : undefined;
      };
      const due = rows.filter((r) => r.nextAttemptAt && r.nextAttemptAt <= now && originOf(r));
      const sending = new Set(due.filter((r) => !unleased(r, now)).map(originOf));
      const times = due.filter((r) => unleased(r, now) && !sending.has(originOf(r))).map((r) => r.nextAttemptAt!.getTime());
      return times.length ? new Date(Math.min(...times)) : null;
    },
  };
}
