import type { ConnectRouter } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import { WebhookService, type Actor } from '@cluster/proto';
import type { createDeliveryReadService } from './deliveries/service.ts';
import { pageArgs } from './lib/json.ts';
import type { SubscriptionService } from './subscriptions/service.ts';
import type { createTestCaller } from './subscriptions/test-call.ts';

/** Reports a write to the core's audit trail (the gateway's Actor made it). */
export type AuditReporter = (actor: Actor | undefined, action: string, subscriptionId: string, metadata?: Record<string, unknown>) => Promise<void>;

export interface DeliveryAppDeps {
  audit: AuditReporter;
  subscriptions: SubscriptionService;
  deliveries: ReturnType<typeof createDeliveryReadService>;
  tests: ReturnType<typeof createTestCaller>;
}

const obj = (v: JsonObject | undefined): Record<string, unknown> => (v ?? {}) as Record<string, unknown>;

/** The delivery service's Connect routes (composition happens in start.ts). */
export function buildDeliveryRoutes(deps: DeliveryAppDeps) {
  const { subscriptions, deliveries, tests, audit } = deps;
  return (router: ConnectRouter) => {
    router.service(WebhookService, {
      async listWebhooks(req) {
        const { page, pageSize } = pageArgs(req);
        return subscriptions.list(req.actor, obj(req.query), page, pageSize);
      },
      async createWebhook(req) {
        const resource = await subscriptions.create(req.actor, obj(req.body));
        await audit(req.actor, 'created', String(resource.id), { destinationUrl: resource.destinationUrl, eventNames: resource.eventNames });
        return { resource, created: true };
      },
      async getWebhook(req) {
        return { resource: await subscriptions.get(req.actor, req.id) };
      },
      async updateWebhook(req) {
        const resource = await subscriptions.update(req.actor, req.id, obj(req.body));
        await audit(req.actor, 'updated', req.id, { fields: Object.keys(obj(req.body)) });
        return { resource };
      },
      async deleteWebhook(req) {
        await subscriptions.remove(req.actor, req.id);
        await audit(req.actor, 'deleted', req.id);
        return {};
      },
      async rotateWebhookSecret(req) {
        const resource = await subscriptions.rotateSecret(req.actor, req.id);
        await audit(req.actor, 'secret_rotated', req.id);
        return { resource };
      },
      async testWebhook(req) {
        const resource = await tests.fire(req.actor, req.id, obj(req.body));
        await audit(req.actor, 'tested', req.id, { eventName: resource.eventName });
        return { resource };
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
