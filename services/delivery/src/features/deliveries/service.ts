import type { JsonObject } from '@bufbuild/protobuf';
import { DELIVERY_STATUSES, STATS_BUCKETS, STATS_WINDOWS, UNDELIVERED_STATUSES, type StatsWindow } from '@cluster/contracts';
import { notFound, requireActor, validation, type Page, type PageArgs } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import { subscriptionInScope } from '../subscriptions/scope.ts';
import { presentDelivery, presentDeliveryWithAttempts } from './presenter.ts';
import type { DeliverySearch, UndeliveredCount } from './read-store.ts';

/** An hour in ms: the statistics' windows start on a whole hour. */
const HOUR_MS = 3_600_000;

/**
 * The filters of a delivery list or summary, from its query Struct (validated by the operation's schema: a
 * status of DELIVERY_STATUSES, RFC 3339 times); a window whose `until` is not after its `since` is a 400.
 */
function searchOf(query: Record<string, unknown>): DeliverySearch {
  const text = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
  const time = (name: string) => {
    const value = text(name);
    return value === undefined ? undefined : new Date(value);
  };
  const [since, until] = [time('since'), time('until')];
  if (since && until && until <= since) throw validation([{ path: 'until', message: 'must be later than since' }]);
  return {
    subscriptionId: text('subscriptionId'),
    status: text('status'),
    eventName: text('eventName'),
    since,
    until,
  };
}

/** The undelivered counts of some subscriptions and statuses, added up: total, per status, and the oldest. */
function undeliveredOf(counts: readonly UndeliveredCount[]): JsonObject & { total: number } {
  const by = (status: string) => counts.filter((c) => c.status === status).reduce((sum, c) => sum + c.count, 0);
  const oldest = counts.reduce<Date | null>((min, c) => {
    const at = new Date(c.oldestCreatedAt);
    return min === null || at < min ? at : min;
  }, null);
  return {
    total: counts.reduce((sum, c) => sum + c.count, 0),
    ...Object.fromEntries(UNDELIVERED_STATUSES.map((status) => [status, by(status)])),
    oldestCreatedAt: oldest ? oldest.toISOString() : null,
  };
}

/**
 * Delivery records of a subscription, for GET /webhooks/:id/deliveries[/:deliveryId] and its statistics
 * (GET /webhooks/:id/stats). Rules only; SQL is in the stores. `disableAfterMs` (WEBHOOK_DISABLE_AFTER_HOURS)
 * tells a failing subscription when it is disabled (`disablesAt`).
 */
export function createDeliveryService(stores: Stores, opts: { disableAfterMs?: number; clock?: () => Date } = {}) {
  const clock = opts.clock ?? (() => new Date());
  const ratio = (succeeded: number, finished: number) => (finished ? Math.round((succeeded / finished) * 10_000) / 10_000 : null);
  return {
    /**
     * GET /webhooks/:id/stats: the subscription's deliveries and attempts over the last 24 hours or 7 days of
     * the clock (the current hour and the 23 or 167 whole hours before it), and the window over time (hourly or
     * daily buckets); a failing subscription's `disablesAt`.
     */
    async stats(actorIn: Actor | undefined, subscriptionId: string, query: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const subscription = await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const window = (query.window ?? '24h') as string;
      if (!Object.hasOwn(STATS_WINDOWS, window)) {
        throw validation([{ path: '/window', message: `must be one of: ${Object.keys(STATS_WINDOWS).join(', ')}` }]);
      }
      const windowMs = STATS_WINDOWS[window as StatsWindow];
      const { bucket, bucketMs } = STATS_BUCKETS[window as StatsWindow];
      // The window is whole hours of the clock (UTC), the current one last: the hourly rollup's
      // (docs/decisions-webhooks.md, "Statistics from an hourly rollup").
      const since = new Date(Math.floor(clock().getTime() / HOUR_MS) * HOUR_MS + HOUR_MS - windowMs);
      const s = await stores.deliveryReads.stats(subscriptionId, since, { bucketMs, buckets: windowMs / bucketMs });
      const filtered = await stores.subscriptions.filteredSince(subscriptionId, since);
      const count = (status: string) => s.byStatus[status] ?? 0;
      const finished = count('succeeded') + count('failed') + count('dead_letter');
      const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
      const failingSince = subscription.enabled && subscription.failingSince ? new Date(subscription.failingSince) : null;
      return {
        subscriptionId,
        window,
        since: since.toISOString(),
        deliveries: {
          total: DELIVERY_STATUSES.reduce((sum, status) => sum + count(status), 0),
          ...Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, count(status)])),
        },
        successRatio: ratio(count('succeeded'), finished),
        attempts: {
          total: s.attempts.total,
          succeeded: s.attempts.succeeded,
          failed: s.attempts.failed,
          p50DurationMs: s.attempts.p50,
          p95DurationMs: s.attempts.p95,
          p99DurationMs: s.attempts.p99,
        },
        lastSuccessAt: iso(s.lastSuccessAt),
        lastFailureAt: iso(s.lastFailureAt),
        throttling: {
          pausedUntil:
            subscription.pausedUntil && new Date(subscription.pausedUntil) > clock() ? iso(subscription.pausedUntil) : null,
          pauses: s.pauses.count,
          pausedSeconds: Math.round(s.pauses.ms) / 1000,
        },
        series: {
          bucket,
          points: s.series.map((b, i) => {
            const delivered = b.byStatus.succeeded ?? 0;
            const failed = (b.byStatus.failed ?? 0) + (b.byStatus.dead_letter ?? 0);
            return {
              start: new Date(since.getTime() + i * bucketMs).toISOString(),
              delivered,
              failed,
              successRatio: ratio(delivered, delivered + failed),
              p50DurationMs: b.p50,
              p99DurationMs: b.p99,
            };
          }),
        },
        disablesAt:
          failingSince && opts.disableAfterMs !== undefined
            ? new Date(failingSince.getTime() + opts.disableAfterMs).toISOString()
            : null,
        filtered,
      };
    },

    async list(
      actorIn: Actor | undefined,
      subscriptionId: string,
      filters: Record<string, unknown>,
      page: PageArgs,
    ): Promise<Page<JsonObject>> {
      const actor = requireActor(actorIn);
      await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const rows = await stores.deliveryReads.list(actor.organizationId, { ...searchOf(filters), subscriptionId }, page);
      return { ...rows, data: rows.data.map(presentDelivery) };
    },

    /** GET /webhook-deliveries: the organization's delivery records; a `subscriptionId` not of its own is a 404. */
    async search(actorIn: Actor | undefined, filters: Record<string, unknown>, page: PageArgs): Promise<Page<JsonObject>> {
      const actor = requireActor(actorIn);
      const search = searchOf(filters);
      if (search.subscriptionId !== undefined) await subscriptionInScope(stores.subscriptions, actor, search.subscriptionId);
      const rows = await stores.deliveryReads.list(actor.organizationId, search, page);
      return { ...rows, data: rows.data.map(presentDelivery) };
    },

    /**
     * GET /webhook-deliveries/summary: how many of the organization's deliveries have not arrived (pending,
     * failed, dead_letter; test deliveries excluded), in all and by subscription, most undelivered first.
     */
    async summary(actorIn: Actor | undefined, query: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const search = searchOf(query);
      if (search.subscriptionId !== undefined) await subscriptionInScope(stores.subscriptions, actor, search.subscriptionId);
      const counts = await stores.deliveryReads.undelivered(actor.organizationId, search);
      const ids = [...new Set(counts.map((c) => c.subscriptionId))];
      const subscriptions = ids
        .map((id) => ({ subscriptionId: id, ...undeliveredOf(counts.filter((c) => c.subscriptionId === id)) }))
        .sort((a, b) => b.total - a.total || a.subscriptionId.localeCompare(b.subscriptionId));
      return {
        since: search.since?.toISOString() ?? null,
        until: search.until?.toISOString() ?? null,
        undelivered: undeliveredOf(counts),
        subscriptions,
      };
    },

    async get(actorIn: Actor | undefined, subscriptionId: string, deliveryId: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const row = await stores.deliveryReads.find(actor.organizationId, subscriptionId, deliveryId);
      if (!row) throw notFound('delivery');
      return presentDeliveryWithAttempts(row, await stores.attempts.listFor(deliveryId));
    },
  };
}
export type DeliveryService = ReturnType<typeof createDeliveryService>;
