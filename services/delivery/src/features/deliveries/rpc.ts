import type { ServiceImpl } from '@connectrpc/connect';
import { bodyOf, pageArgs } from '@cluster/platform';
import type { WebhookService } from '@cluster/proto';
import type { DeliveryService } from './service.ts';

/** The delivery-record methods of WebhookService over Connect: unpacks requests, calls the rules, packs answers. */
export function deliveryRpc(
  deliveries: DeliveryService,
): Pick<ServiceImpl<typeof WebhookService>, 'listDeliveries' | 'getDelivery'> {
  return {
    async listDeliveries(req) {
      return deliveries.list(req.actor, req.parentId, bodyOf(req.query), pageArgs(req));
    },
    async getDelivery(req) {
      const subscriptionId = bodyOf<{ subscriptionId?: string }>(req.query).subscriptionId ?? '';
      return { resource: await deliveries.get(req.actor, subscriptionId, req.id) };
    },
  };
}
