import type { ServiceImpl } from '@connectrpc/connect';
import type { WebhookRecoverRequestBody } from '@cluster/contracts';
import { bodyOf, jsonBytes } from '@cluster/platform';
import type { WebhookService } from '@cluster/proto';
import type { RecoveryService } from './service.ts';

/** The redeliver and recover methods of WebhookService over Connect. */
export function recoveryRpc(
  recovery: RecoveryService,
): Pick<ServiceImpl<typeof WebhookService>, 'redeliverDelivery' | 'recoverDeliveries' | 'getRecovery'> {
  const subscriptionOf = (query: Parameters<typeof bodyOf>[0]) => bodyOf<{ subscriptionId?: string }>(query).subscriptionId ?? '';
  return {
    async redeliverDelivery(req) {
      return { resource: jsonBytes(await recovery.redeliver(req.actor, subscriptionOf(req.query), req.id)) };
    },
    async recoverDeliveries(req) {
      return { resource: jsonBytes(await recovery.recover(req.actor, req.id, bodyOf<WebhookRecoverRequestBody>(req.body))) };
    },
    async getRecovery(req) {
      return { resource: jsonBytes(await recovery.getRecovery(req.actor, subscriptionOf(req.query), req.id)) };
    },
  };
}
