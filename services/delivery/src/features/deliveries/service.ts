import type { JsonObject } from '@bufbuild/protobuf';
import { notFound, requireActor, type Page, type PageArgs } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import { subscriptionInScope } from '../subscriptions/scope.ts';
import { presentDelivery, presentDeliveryWithAttempts } from './presenter.ts';

/** Delivery records of a subscription, for GET /webhooks/:id/deliveries[/:deliveryId]. Rules only; SQL is in the stores. */
export function createDeliveryService(stores: Stores) {
  return {
    async list(
      actorIn: Actor | undefined,
      subscriptionId: string,
      filters: Record<string, unknown>,
      page: PageArgs,
    ): Promise<Page<JsonObject>> {
      const actor = requireActor(actorIn);
      await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const status = typeof filters.status === 'string' ? filters.status : undefined;
      const rows = await stores.deliveries.list(actor.organizationId, subscriptionId, { status }, page);
      return { ...rows, data: rows.data.map(presentDelivery) };
    },

    async get(actorIn: Actor | undefined, subscriptionId: string, deliveryId: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const row = await stores.deliveries.find(actor.organizationId, subscriptionId, deliveryId);
      if (!row) throw notFound('delivery');
      return presentDeliveryWithAttempts(row, await stores.attempts.listFor(deliveryId));
    },
  };
}
export type DeliveryService = ReturnType<typeof createDeliveryService>;
