import { fakePage } from '@cluster/db/test-kit';
import type { SubscriptionRow, SubscriptionStore } from './store.ts';

/** An in-memory SubscriptionStore for unit tests of the rules (no Postgres). */
export function createFakeSubscriptionStore(
  rows: SubscriptionRow[] = [],
): SubscriptionStore & { rows: SubscriptionRow[]; throttled: Set<string>; filtered: Map<string, number> } {
  /** Subscriptions with a row of throttle state (delivery.throttles). */
  const throttled = new Set<string>();
  /** Filtered counts by `${subscriptionId} ${hour ISO}`. */
  const filtered = new Map<string, number>();
  const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
  const live = (organizationId: string) => rows.filter((r) => r.organizationId === organizationId && !r.deletedAt);
  const byId = (id: string) => {
    const row = rows.find((r) => r.id === id);
    if (!row) throw new Error(`fake: no subscription ${id}`);
    return row;
  };
  return {
    rows,
    throttled,
    filtered,
    async list(organizationId, filter, page) {
      return fakePage(
        live(organizationId).filter(
          (r) => r.temporary === (filter.temporary ?? false) && (filter.enabled === undefined || r.enabled === filter.enabled),
        ),
        page,
      );
    },
    async find(organizationId, id) {
      const row = live(organizationId).find((r) => r.id === id);
      return row && { ...row }; // a copy, as a database read is: later writes must not change it
    },
    async insert(values) {
      const now = new Date();
      const row: SubscriptionRow = {
        previousSecretSealed: null,
        previousSecretUntil: null,
        receiverSealed: null,
        receiverView: null,
        filter: null,
        consecutiveFailures: 0,
        failingSince: null,
        failingNotifiedAt: null,
        disabledReason: null,
        disabledAt: null,
        temporary: false,
        listenExpiresAt: null,
        rateLimit: null,
        maxInFlight: null,
        pausedUntil: null,
        ...values,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
      };
      rows.push(row);
      return { ...row };
    },
    async update(id, values) {
      const row = Object.assign(byId(id), values, { updatedAt: new Date() });
      return { ...row };
    },
    async syncThrottle(id, on) {
      if (on) throttled.add(id);
      else throttled.delete(id);
    },
    async softDelete(id) {
      Object.assign(byId(id), { deletedAt: new Date(), enabled: false, updatedAt: new Date() });
    },
    async matching(organizationIds, selectors) {
      return rows
        .filter((r) => organizationIds.includes(r.organizationId) && r.enabled && !r.deletedAt)
        .filter((r) => r.eventNames.some((n) => selectors.includes(n)))
        .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
        .map((r) => ({
          id: r.id,
          organizationId: r.organizationId,
          eventNames: r.eventNames,
          createdAt: r.createdAt,
          destinationUrl: r.destinationUrl,
          destinationOrigin: r.destinationOrigin,
          secretSealed: r.secretSealed,
          previousSecretSealed: r.previousSecretSealed,
          previousSecretUntil: r.previousSecretUntil,
          receiverSealed: r.receiverSealed,
          ordering: r.ordering,
          temporary: r.temporary,
          rateLimit: r.rateLimit,
          maxInFlight: r.maxInFlight,
          pausedUntil: r.pausedUntil,
          filter: r.filter ?? null,
        }));
    },
    async allIds() {
      return rows.map((r) => r.id);
    },
    async sealedOtherwise(prefix, afterId, limit) {
      const previousOf = (r: SubscriptionRow) =>
        r.previousSecretUntil && r.previousSecretUntil.getTime() > Date.now() ? r.previousSecretSealed : null;
      return rows
        .filter((r) => afterId === null || r.id > afterId)
        .filter((r) =>
          [r.secretSealed, previousOf(r), r.receiverSealed ?? null].some(
            (sealed) => sealed !== null && !sealed.startsWith(prefix),
          ),
        )
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .slice(0, limit)
        .map((r) => ({
          id: r.id,
          secretSealed: r.secretSealed,
          previousSecretSealed: previousOf(r),
          receiverSealed: r.receiverSealed ?? null,
        }));
    },
    async replaceSealed(id, from, to, column = 'secretSealed') {
      const row = byId(id);
      if (row[column] !== from) return false;
      row[column] = to;
      return true;
    },
    async disableFor(id, reason) {
      const row = rows.find((r) => r.id === id && r.enabled && !r.deletedAt);
      if (!row) return undefined;
      Object.assign(row, { enabled: false, disabledReason: reason, disabledAt: new Date(), updatedAt: new Date() });
      return { ...row };
    },
    async claimFailingNotices(threshold) {
      const due = rows.filter(
        (r) => r.enabled && !r.deletedAt && r.failingSince && !r.failingNotifiedAt && r.consecutiveFailures >= threshold,
      );
      for (const r of due) r.failingNotifiedAt = new Date();
      return due.map((r) => ({ ...r }));
    },
    async failingSinceBefore(cutoff) {
      return rows.filter((r) => r.enabled && !r.deletedAt && r.failingSince && r.failingSince < cutoff).map((r) => r.id);
    },
    async addFiltered(counts, at) {
      for (const [id, n] of counts) {
        if (n <= 0) continue;
        const key = `${id} ${hourOf(at).toISOString()}`;
        filtered.set(key, (filtered.get(key) ?? 0) + n);
      }
    },
    async filteredSince(subscriptionId, since) {
      let sum = 0;
      for (const [key, n] of filtered) {
        const [id, hour] = key.split(' ');
        if (id === subscriptionId && new Date(hour) >= hourOf(since)) sum += n;
      }
      return sum;
    },
    async pruneFiltered(cutoff) {
      let n = 0;
      for (const key of [...filtered.keys()]) {
        if (new Date(key.split(' ')[1]) < cutoff) {
          filtered.delete(key);
          n++;
        }
      }
      return n;
    },
  };
}
