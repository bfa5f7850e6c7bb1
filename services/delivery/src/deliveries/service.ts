import type { JsonObject } from '@bufbuild/protobuf';
import type { Knex } from '@cluster/db';
import { isUuid, pageOffset } from '@cluster/db';
import { notFound } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { toJson, type Page } from '../lib/json.ts';
import { requireActor } from '../lib/actor.ts';

/** Fields of a delivery record (api-decisions.md, "Webhook delivery"). */
export const DELIVERY_FIELDS = [
  'id', 'subscriptionId', 'eventName', 'eventId', 'status', 'attempts', 'responseCode', 'responseBody', 'error',
  'durationMs', 'nextAttemptAt', 'createdAt', 'updatedAt',
] as const;
const ATTEMPT_FIELDS = ['attempt', 'outcome', 'responseCode', 'responseBody', 'error', 'durationMs', 'attemptedAt'] as const;

/** What leaves the service for a delivery: never the body's signature or the lease. */
export function presentDelivery(row: Record<string, unknown>): JsonObject {
  return toJson(row, DELIVERY_FIELDS);
}

/** Delivery records of a subscription, for GET /webhooks/:id/deliveries[/:deliveryId]. */
export function createDeliveryReadService(db: Knex) {
  /** The subscription must be the actor's organization's and not deleted; otherwise 404. */
  async function visibleSubscription(actor: Actor, subscriptionId: string): Promise<void> {
    if (!isUuid(subscriptionId)) throw notFound('webhook');
    const sub = await db('delivery.subscriptions')
      .where({ id: subscriptionId, organizationId: actor.organizationId })
      .whereNull('deletedAt')
      .first('id');
    if (!sub) throw notFound('webhook');
  }

  return {
    async list(actorIn: Actor | undefined, subscriptionId: string, filters: Record<string, unknown>, page: number, pageSize: number): Promise<Page> {
      const actor = requireActor(actorIn);
      await visibleSubscription(actor, subscriptionId);
      const q = db('delivery.deliveries').where({ subscriptionId, organizationId: actor.organizationId });
      if (typeof filters.status === 'string') q.andWhere({ status: filters.status });
      const [{ count }] = await q.clone().count({ count: '*' });
      const rows = await q
        .clone()
        .select(DELIVERY_FIELDS)
        .orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(pageSize)
        .offset(pageOffset(page, pageSize));
      return { data: rows.map(presentDelivery), page, pageSize, total: Number(count) };
    },

    async get(actorIn: Actor | undefined, subscriptionId: string, deliveryId: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await visibleSubscription(actor, subscriptionId);
      if (!isUuid(deliveryId)) throw notFound('delivery');
      const row = await db('delivery.deliveries')
        .where({ id: deliveryId, subscriptionId, organizationId: actor.organizationId })
        .first(DELIVERY_FIELDS);
      if (!row) throw notFound('delivery');
      const attempts = await db('delivery.attempts').where({ deliveryId }).orderBy('attempt').select(ATTEMPT_FIELDS);
      return { ...presentDelivery(row), attemptLog: attempts.map((a) => toJson(a, ATTEMPT_FIELDS)) };
    },
  };
}
