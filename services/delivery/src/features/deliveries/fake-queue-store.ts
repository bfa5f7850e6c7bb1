import { randomUUID } from 'node:crypto';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import { atTime, claimBindings, THROTTLE_HORIZON_MS, type ClaimedDelivery, type DeliveryQueueStore } from './queue-store.ts';
import type { DeliveryRow } from './rows.ts';

/** A delivery's lease has lapsed (or it never had one) at `now`. */
export const unleased = (r: DeliveryRow, now: Date): boolean => !r.lockedUntil || r.lockedUntil < now;

/** The queue's UNFINISHED: scheduled, in flight, or not yet attempted (waiting its turn included). */
export const unfinished = (r: DeliveryRow, now: Date): boolean =>
  r.nextAttemptAt !== null || (r.lockedUntil !== null && r.lockedUntil > now) || r.status === 'pending';

/** Whether an earlier delivery of `d`'s ordered key is unfinished (then `d` must wait). */
export function waitsBehind(rows: readonly DeliveryRow[], d: DeliveryRow, now: Date): boolean {
  if (d.orderKey === null || d.orderSeq === null) return false;
  const seq = d.orderSeq;
  return rows.some(
    (e) =>
      e.subscriptionId === d.subscriptionId &&
      e.orderKey === d.orderKey &&
      e.orderSeq !== null &&
      e.orderSeq < seq &&
      unfinished(e, now),
  );
}

/** The fake's row of delivery.throttles: the next rate slot and the live in-flight leases (token -> expiry). */
export interface FakeThrottle {
  nextAt: Date;
  leases: Map<string, Date>;
}

/**
 * An in-memory DeliveryQueueStore for unit tests (no Postgres), over the fake subscriptions' rows (a
 * claim reads their destination and state) and a table of delivery rows it shares with the other
 * fakes of deliveries. Held to the real store by queue-store.contract.test.ts: its claim follows
 * CLAIM_SQL step by step (the scan window, the per-origin ranks, the orphans, the ordered keys).
 * `notified` collects the notifier of every insert that left a delivery free to claim.
 */
export function createFakeDeliveryQueueStore(
  subscriptions: SubscriptionRow[],
  rows: DeliveryRow[] = [],
  clock: () => Date = () => new Date(),
): DeliveryQueueStore & { rows: DeliveryRow[]; notified: string[]; throttles: Map<string, FakeThrottle> } {
  const notified: string[] = [];
  /** delivery.throttles: the shared state of subscriptions with a rateLimit or maxInFlight (made on first claim here). */
  const throttles = new Map<string, FakeThrottle>();
  const throttleOf = (s: SubscriptionRow): FakeThrottle | undefined => {
    if (s.rateLimit === null && s.maxInFlight === null) return undefined;
    const t = throttles.get(s.id) ?? { nextAt: new Date(0), leases: new Map<string, Date>() };
    throttles.set(s.id, t);
    return t;
  };
  const busy = (t: FakeThrottle, now: Date) => [...t.leases.values()].filter((until) => until > now).length;
  let orderSeq = 0;
  const scheduled = (r: DeliveryRow) => r.nextAttemptAt !== null;
  const due = (r: DeliveryRow, now: Date) => r.nextAttemptAt !== null && r.nextAttemptAt <= now && unleased(r, now);
  const live = (s: SubscriptionRow | undefined): s is SubscriptionRow => !!s && s.enabled && !s.deletedAt;
  const subOf = (r: DeliveryRow) => subscriptions.find((s) => s.id === r.subscriptionId);
  const byDue = (a: DeliveryRow, b: DeliveryRow) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0);
  return {
    rows,
    notified,
    throttles,
    async insertMany(news, opts = {}) {
      const now = clock();
      const before = [...rows];
      const inserted = new Set<string>();
      const nth = new Map<string, number>();
      let free = 0;
      for (const n of news) {
        const test = n.test ?? false;
        const orderKey = n.orderKey ?? null;
        const key = `${n.subscriptionId} ${orderKey}`;
        const place = (nth.get(key) ?? 0) + 1;
        nth.set(key, place);
        const seq = orderKey === null ? null : ++orderSeq;
        if (rows.some((r) => r.id === n.id)) continue;
        // An ordered delivery waits (nothing scheduled) behind an unfinished one of its key.
        const waits =
          orderKey !== null &&
          (place > 1 ||
            before.some((e) => e.subscriptionId === n.subscriptionId && e.orderKey === orderKey && unfinished(e, now)));
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
          nextAttemptAt: test || waits ? null : now,
          firstAttemptAt: null,
          lastAttemptAt: null,
          leaseToken: n.leaseToken ?? null,
          lockedUntil: n.leaseToken && !test ? new Date(now.getTime() + (opts.leaseMs ?? 0)) : null,
          createdAt: n.createdAt ?? now,
          updatedAt: now,
          traceparent: n.traceparent ?? null,
          orderKey,
          orderSeq: seq,
        });
        inserted.add(n.id);
        if (!n.leaseToken) free++;
      }
      if (free) notified.push(opts.notifier ?? '');
      return inserted;
    },

    // CLAIM_SQL's steps, in its words: due, ranked, orphaned, picked, then the lease.
    async claim(args) {
      if (args.limit <= 0) return { deliveries: [], more: false };
      const now = clock();
      const { scan } = claimBindings(args);
      const full = new Set([...args.caps].filter(([, cap]) => cap <= 0).map(([origin]) => origin));
      const horizon = new Date(now.getTime() + THROTTLE_HORIZON_MS);
      // Paused subscriptions, and throttled ones with nothing to give now, are not scanned.
      const idle = (s: SubscriptionRow | undefined) => {
        if (!s) return false;
        if (s.pausedUntil && s.pausedUntil > now) return true;
        const t = throttleOf(s);
        return !!t && (t.nextAt > horizon || (s.maxInFlight !== null && busy(t, now) >= s.maxInFlight));
      };
      const dueRows = rows
        .filter((r) => due(r, now) && !subOf(r)?.temporary && !full.has(subOf(r)?.destinationOrigin ?? '') && !idle(subOf(r)))
        .sort(byDue)
        .slice(0, scan);
      const rank = new Map<string, number>();
      const ranked: DeliveryRow[] = [];
      for (const r of dueRows) {
        const s = subOf(r);
        if (!live(s)) {
          // Written while its subscription was being disabled or deleted: stopped.
          Object.assign(r, {
            nextAttemptAt: null,
            status: 'failed',
            error: 'retries stopped: subscription disabled or deleted',
            updatedAt: now,
          });
          continue;
        }
        const rn = (rank.get(s.destinationOrigin) ?? 0) + 1;
        rank.set(s.destinationOrigin, rn);
        if (rn <= (args.caps.get(s.destinationOrigin) ?? args.defaultCap)) ranked.push(r);
      }
      const picked = ranked.slice(0, args.limit).filter((r) => !waitsBehind(rows, r, now));
      // The throttled subscriptions' rows: rate slots 1/rateLimit s apart up to the horizon, within free in-flight slots.
      const taken = new Map<string, number>();
      const granted = picked.flatMap((r) => {
        const s = subOf(r)!;
        const t = throttleOf(s);
        if (!t) return [{ r, notBefore: null, slotted: false }];
        const n = taken.get(s.id) ?? 0;
        const base = Math.max(t.nextAt.getTime(), now.getTime());
        const notBefore = s.rateLimit === null ? null : new Date(base + (n * 1000) / s.rateLimit);
        if (notBefore && notBefore > horizon) return [];
        if (s.maxInFlight !== null && n + 1 > s.maxInFlight - busy(t, now)) return [];
        taken.set(s.id, n + 1);
        return [{ r, notBefore, slotted: s.maxInFlight !== null }];
      });
      for (const [id, k] of taken) {
        const s = subscriptions.find((x) => x.id === id)!;
        const t = throttles.get(id)!;
        if (s.rateLimit !== null) t.nextAt = new Date(Math.max(t.nextAt.getTime(), now.getTime()) + (k * 1000) / s.rateLimit);
        for (const [token, until] of t.leases) if (until <= now) t.leases.delete(token);
      }
      const claimed = granted.map(({ r, notBefore, slotted }): ClaimedDelivery => {
        const s = subOf(r)!;
        Object.assign(r, { lockedUntil: new Date(now.getTime() + args.leaseMs), leaseToken: randomUUID() });
        if (slotted) throttles.get(s.id)!.leases.set(r.leaseToken!, r.lockedUntil!);
        return {
          notBefore,
          slotted,
          throttledAttempts: r.throttledAttempts ?? 0,
          id: r.id,
          createdAt: r.createdAt,
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
          previousSecretSealed: s.previousSecretSealed,
          previousSecretUntil: s.previousSecretUntil,
          receiverSealed: s.receiverSealed ?? null,
          traceparent: r.traceparent,
          orderKey: r.orderKey,
        };
      });
      return { deliveries: claimed, more: claimed.length > 0 && dueRows.length >= scan };
    },

    async nextDueAt() {
      const now = clock().getTime();
      const future = rows.map((r) => r.nextAttemptAt?.getTime() ?? 0).filter((t) => t > now);
      return future.length ? new Date(Math.min(...future)) : null;
    },

    async release(claims) {
      for (const c of claims) {
        // By id and time, as the statement finds it (migration 018's primary key).
        const r = rows.find((x) => x.id === c.id && atTime(x.createdAt, c.createdAt) && x.leaseToken === c.leaseToken);
        if (r) Object.assign(r, { lockedUntil: null, leaseToken: null });
        if (c.slotted && c.subscriptionId) throttles.get(c.subscriptionId)?.leases.delete(c.leaseToken);
      }
    },

    async countPaused() {
      const now = clock();
      return subscriptions.filter((s) => live(s) && s.pausedUntil && s.pausedUntil > now).length;
    },

    async stopPending(subscriptionId, reason) {
      const stopped = rows.filter((r) => r.subscriptionId === subscriptionId && scheduled(r));
      for (const r of stopped) Object.assign(r, { nextAttemptAt: null, status: 'failed', error: reason, updatedAt: clock() });
      return stopped.length;
    },

    async releaseWaiting(keys) {
      const now = clock();
      const inScope = (w: DeliveryRow) =>
        !keys || keys.some((k) => k.subscriptionId === w.subscriptionId && k.orderKey === w.orderKey);
      const waiting = rows.filter(
        (w) =>
          w.orderKey !== null && w.status === 'pending' && !scheduled(w) && !w.test && inScope(w) && !waitsBehind(rows, w, now),
      );
      for (const w of waiting) Object.assign(w, { nextAttemptAt: now, updatedAt: now });
      return waiting.length;
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
      const originOf = (r: DeliveryRow) => {
        const s = subOf(r);
        const heldBack = !!s && (s.rateLimit !== null || (s.pausedUntil !== null && s.pausedUntil > now));
        return live(s) && !heldBack ? s.destinationOrigin : undefined;
      };
      const dueRows = rows.filter((r) => r.nextAttemptAt && r.nextAttemptAt <= now && originOf(r));
      const sending = new Set(dueRows.filter((r) => !unleased(r, now)).map(originOf));
      const times = dueRows.filter((r) => unleased(r, now) && !sending.has(originOf(r))).map((r) => r.nextAttemptAt!.getTime());
      return times.length ? new Date(Math.min(...times)) : null;
    },
  };
}
