import { WebhookService } from '@cluster/proto';
import {
  Delivery,
  DeliveryDetail,
  DeliveryFilters,
  EventTypeList,
  EventTypeQuery,
  ListOf,
  PUBLIC_EVENT_TYPES,
  ListQuery,
  Webhook,
  WebhookCreate,
  WebhookRecoverBody,
  WebhookRecovery,
  WebhookRotateSecret,
  WebhookStats,
  WebhookStatsQuery,
  WebhookFilters,
  WebhookTestBody,
  WebhookTestResult,
  WebhookUpdate,
  WebhookWithSecret,
} from '@cluster/contracts';
import { accepted, created, list, listArgs, noContent, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** The catalogue's answers, serialised once: it is the same for every key (`emitted` filters it). */
const catalogueAnswers = new Map(
  [undefined, true, false].map((emitted) => {
    const data = PUBLIC_EVENT_TYPES.filter((e) => emitted === undefined || e.emitted === emitted);
    return [emitted, Buffer.from(JSON.stringify({ data, total: data.length }))];
  }),
);

/**
 * Webhook subscriptions and their delivery records. Subscriptions belong to the
 * organization, so every path needs an organization-scoped key (docs/decisions-api.md:
 * other organization-wide paths answer a project key 403 scope_violation), except the
 * event catalogue: it holds no organization's data, so any key with read:webhook reads it.
 */
export const webhookRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/webhooks',
    summary: 'List webhook subscriptions',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'listWebhooks',
    tool: {
      name: 'list_webhooks',
      title: 'List webhook subscriptions',
      description:
        'The organization’s webhook subscriptions, with their health: enabled, disabledReason, consecutiveFailures, failingSince.',
    },
    permission: 'read:webhook',
    orgKeyOnly: true,
    query: ListQuery(WebhookFilters),
    response: { status: 200, schema: ListOf(Webhook) },
    handler: async (input) => list(await input.call(listArgs(input))),
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks',
    summary: 'Create a webhook subscription',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'createWebhook',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    body: WebhookCreate,
    response: { status: 201, schema: WebhookWithSecret },
    handler: async ({ actor, body, call }) => created((await call({ actor, body: toStruct(body) })).resource),
  }),
  // Before /webhooks/:id, which would otherwise take "event-types" for an id: the first match wins.
  defineRoute({
    method: 'GET',
    path: '/webhooks/event-types',
    summary: 'The event catalogue: every event name with its payload schema',
    tag: 'webhooks',
    tool: false,
    permission: 'read:webhook',
    query: EventTypeQuery,
    response: { status: 200, schema: EventTypeList },
    handler: async ({ query }) => ok(catalogueAnswers.get(query.emitted)!),
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/:id',
    summary: 'Get a webhook subscription',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'getWebhook',
    tool: false,
    permission: 'read:webhook',
    orgKeyOnly: true,
    response: { status: 200, schema: Webhook },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/webhooks/:id',
    summary: 'Update a webhook subscription',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'updateWebhook',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    body: WebhookUpdate,
    response: { status: 200, schema: Webhook },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/webhooks/:id',
    summary: 'Delete a webhook subscription',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'deleteWebhook',
    tool: false,
    permission: 'delete:webhook',
    orgKeyOnly: true,
    response: { status: 204, description: 'Deleted; pending retries stop' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    summary: 'Rotate the signing secret',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'rotateWebhookSecret',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    body: WebhookRotateSecret,
    response: { status: 200, schema: WebhookWithSecret },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/:id/test',
    summary: 'Send a synthetic signed delivery',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'testWebhook',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    body: WebhookTestBody,
    response: { status: 200, schema: WebhookTestResult },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    summary: 'List delivery records of a subscription',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'listDeliveries',
    tool: false,
    permission: 'read:webhook',
    orgKeyOnly: true,
    query: ListQuery(DeliveryFilters),
    response: { status: 200, schema: ListOf(Delivery) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/:id/deliveries/:deliveryId',
    summary: 'Get one delivery record with its attempt log',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'getDelivery',
    tool: false,
    permission: 'read:webhook',
    orgKeyOnly: true,
    response: { status: 200, schema: DeliveryDetail },
    handler: async ({ actor, params, call }) =>
      ok((await call({ actor, id: params.deliveryId, query: { subscriptionId: params.id } })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/:id/stats',
    summary: "Get a webhook subscription's delivery statistics",
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'getWebhookStats',
    tool: {
      name: 'webhook_stats',
      title: 'Webhook delivery statistics',
      description:
        'A subscription’s deliveries over the last 24 hours or 7 days: counts by status, success ratio, attempt durations, last success and failure.',
    },
    permission: 'read:webhook',
    orgKeyOnly: true,
    query: WebhookStatsQuery,
    response: { status: 200, schema: WebhookStats },
    handler: async ({ actor, params, query, call }) =>
      ok((await call({ actor, id: params.id, query: toStruct(query) })).resource),
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    summary: 'Send a delivery again now',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'redeliverDelivery',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    response: {
      status: 200,
      schema: DeliveryDetail,
      description: 'The delivery after the new attempt, with its attempt log (counts against WEBHOOK_TEST_LIMIT_PER_HOUR)',
    },
    handler: async ({ actor, params, call }) =>
      ok((await call({ actor, id: params.deliveryId, query: { subscriptionId: params.id } })).resource),
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/:id/recover',
    summary: 'Queue again the failed and dead-lettered deliveries of a window',
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'recoverDeliveries',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    body: WebhookRecoverBody,
    response: {
      status: 202,
      schema: WebhookRecovery,
      description: 'The recovery, started; it runs in the background (GET /webhooks/:id/recoveries/:recoveryId)',
    },
    handler: async ({ actor, params, body, call }) =>
      accepted((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/:id/recoveries/:recoveryId',
    summary: "Get a recovery's progress",
    tag: 'webhooks',
    service: WebhookService,
    rpc: 'getRecovery',
    tool: false,
    permission: 'read:webhook',
    orgKeyOnly: true,
    response: { status: 200, schema: WebhookRecovery },
    handler: async ({ actor, params, call }) =>
      ok((await call({ actor, id: params.recoveryId, query: { subscriptionId: params.id } })).resource),
  }),
];
