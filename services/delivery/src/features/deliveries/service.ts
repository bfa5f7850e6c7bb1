import type { JsonObject } from '@bufbuild/protobuf';
import { DELIVERY_STATUSES, STATS_WINDOWS, type StatsWindow } from '@cluster/contracts';
import { notFound, requireActor, validation, type Page, type PageArgs } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import { subscriptionInScope } from '../subscriptions/scope.ts';
import { presentDelivery, presentDeliveryWithAttempts } from './presenter.ts';

/**
 * Delivery records of a subscription, for GET /webhooks/:id/deliveries[/:deliveryId] and its statistics
 * (GET /webhooks/:id/stats). Rules only; SQL is in the stores. `retryMaxAgeMs` bounds how long before a
 * window its attempts' deliveries can have been created.
 */
export function createDeliveryService(
  stores: Stores,
  opts: { retryMaxAgeMs: number; clock?: () => Date } = { retryMaxAgeMs: 86_400_000 },
) {
  const clock = opts.clock ?? (() => new Date());
  return {
    /** GET /webhooks/:id/stats: the subscription's deliveries and attempts over the last 24 hours or 7 days. */
    async stats(actorIn: Actor | undefined, subscriptionId: string, query: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const window = (query.window ?? '24h') as string;
      if (!Object.hasOwn(STATS_WINDOWS, window)) {
        throw validation([{ path: '/window', message: `must be one of: ${Object.keys(STATS_WINDOWS).join(', ')}` }]);
      }
      const since = new Date(clock().getTime() - STATS_WINDOWS[window as StatsWindow]);
      const s = await stores.deliveryReads.stats(subscriptionId, since, new Date(since.getTime() - opts.retryMaxAgeMs));
      const count = (status: string) => s.byStatus[status] ?? 0;
      const finished = count('succeeded') + count('failed') + count('dead_letter');
      const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
      return {
        subscriptionId,
        window,
        since: since.toISOString(),
        deliveries: {
          total: DELIVERY_STATUSES.reduce((sum, status) => sum + count(status), 0),
          ...Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, count(status)])),
        },
        successRatio: finished ? Math.round((count('succeeded') / finished) * 10_000) / 10_000 : null,
        attempts: {
          total: s.attempts.total,
          succeeded: s.attempts.succeeded,
          failed: s.attempts.failed,
          p50DurationMs: s.attempts.p50,
          p95DurationMs: s.attempts.p95,
        },
        lastSuccessAt: iso(s.lastSuccessAt),
        lastFailureAt: iso(s.lastFailureAt),
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
      const status = typeof filters.status === 'string' ? filters.status : undefined;
      const rows = await stores.deliveryReads.list(actor.organizationId, subscriptionId, { status }, page);
      return { ...rows, data: rows.data.map(presentDelivery) };
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
