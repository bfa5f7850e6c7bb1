import type { ConnectRouter } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import { WebhookService } from '@cluster/proto';
import type { createDeliveryReadService } from './deliveries/service.ts';
import { pageArgs } from './lib/json.ts';
import type { SubscriptionService } from './subscriptions/service.ts';
import type { createTestCaller } from './subscriptions/test-call.ts';

/** Every write queues its own audit event, in its transaction (audit/forwarder.ts). */
export interface DeliveryAppDeps {
  subscriptions: SubscriptionService;
  deliveries: ReturnType<typeof createDeliveryReadService>;
  tests: ReturnType<typeof createTestCaller>;
}

const obj = (v: JsonObject | undefined): Record<string, unknown> => (v ?? {}) as Record<string, unknown>;

/** The delivery service's Connect routes (composition happens in start.ts). */
export function buildDeliveryRoutes(deps: DeliveryAppDeps) {
  const { subscriptions, deliveries, tests } = deps;
  return (router: ConnectRouter) => {
    router.service(WebhookService, {
      async listWebhooks(req) {
        const { page, pageSize } = pageArgs(req);
        return subscriptions.list(req.actor, obj(req.query), page, pageSize);
      },
      async createWebhook(req) {
        return { resource: await subscriptions.create(req.actor, obj(req.body)), created: true };
      },
      async getWebhook(req) {
        return { resource: await subscriptions.get(req.actor, req.id) };
      },
      async updateWebhook(req) {
        return { resource: await subscriptions.update(req.actor, req.id, obj(req.body)) };
      },
      async deleteWebhook(req) {
        await subscriptions.remove(req.actor, req.id);
        return {};
      },
      async rotateWebhookSecret(req) {
        return { resource: await subscriptions.rotateSecret(req.actor, req.id) };
      },
      async testWebhook(req) {
        return { resource: await tests.fire(req.actor, req.id, obj(req.body)) };
      },
      async listDeliveries(req) {
        const { page, pageSize } = pageArgs(req);
        return deliveries.list(req.actor, req.parentId, obj(req.query), page, pageSize);
      },
      async getDelivery(req) {
        const subscriptionId = String(obj(req.query).subscriptionId ?? '');
        return { resource: await deliveries.get(req.actor, subscriptionId, req.id) };
      },
    });
  };
}
