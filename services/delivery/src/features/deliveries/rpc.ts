import type { ServiceImpl } from '@connectrpc/connect';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { WebhookService } from '@cluster/proto';
import type { DeliveryService } from './service.ts';

/** The delivery-record methods of WebhookService over Connect: unpacks requests, calls the rules, packs answers. */
export function deliveryRpc(
  deliveries: DeliveryService,
): Pick<
  ServiceImpl<typeof WebhookService>,
  'listDeliveries' | 'getDelivery' | 'getWebhookStats' | 'searchDeliveries' | 'getDeliverySummary'
> {
  return {
    async listDeliveries(req) {
      return jsonPage(await deliveries.list(req.actor, req.parentId, bodyOf(req.query), pageArgs(req)));
    },
    async searchDeliveries(req) {
      return jsonPage(await deliveries.search(req.actor, bodyOf(req.query), pageArgs(req)));
    },
    async getDeliverySummary(req) {
      return { resource: jsonBytes(await deliveries.summary(req.actor, bodyOf(req.query))) };
    },
    async getDelivery(req) {
      const subscriptionId = bodyOf<{ subscriptionId?: string }>(req.query).subscriptionId ?? '';
      return { resource: jsonBytes(await deliveries.get(req.actor, subscriptionId, req.id)) };
    },
    async getWebhookStats(req) {
      return { resource: jsonBytes(await deliveries.stats(req.actor, req.id, bodyOf(req.query))) };
    },
  };
}
