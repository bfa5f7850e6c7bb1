import type { ServiceImpl } from '@connectrpc/connect';
import type { WebhookCreateBody, WebhookRotateSecretBody, WebhookUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { WebhookService } from '@cluster/proto';
import type { SubscriptionService } from './service.ts';

/** The subscription methods of WebhookService over Connect: unpacks requests, calls the rules, packs answers. */
export function subscriptionRpc(
  subscriptions: SubscriptionService,
): Pick<
  ServiceImpl<typeof WebhookService>,
  'listWebhooks' | 'createWebhook' | 'getWebhook' | 'updateWebhook' | 'deleteWebhook' | 'rotateWebhookSecret'
> {
  return {
    async listWebhooks(req) {
      return jsonPage(await subscriptions.list(req.actor, bodyOf(req.query), pageArgs(req)));
    },
    async createWebhook(req) {
      return { resource: jsonBytes(await subscriptions.create(req.actor, bodyOf<WebhookCreateBody>(req.body))), created: true };
    },
    async getWebhook(req) {
      return { resource: jsonBytes(await subscriptions.get(req.actor, req.id)) };
    },
    async updateWebhook(req) {
      return { resource: jsonBytes(await subscriptions.update(req.actor, req.id, bodyOf<WebhookUpdateBody>(req.body))) };
    },
    async deleteWebhook(req) {
      await subscriptions.remove(req.actor, req.id);
      return {};
    },
    async rotateWebhookSecret(req) {
      return {
        resource: jsonBytes(await subscriptions.rotateSecret(req.actor, req.id, bodyOf<WebhookRotateSecretBody>(req.body))),
      };
    },
  };
}
