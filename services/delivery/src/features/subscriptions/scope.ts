import { conflict, notFound } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { SubscriptionRow, SubscriptionStore } from './store.ts';

/**
 * Loads a subscription the actor addresses by path (/webhooks/:id/...): one of its
 * organization, not deleted; otherwise 404 (existence is not disclosed). Used by
 * every feature under a subscription (deliveries, test calls).
 */
export async function subscriptionInScope(
  subscriptions: Pick<SubscriptionStore, 'find'>,
  actor: Actor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<SubscriptionRow> {
  const row = await subscriptions.find(actor.organizationId, id, opts);
  if (!row) throw notFound('webhook');
  return row;
}

/**
 * subscriptionInScope for a write that changes or deletes it (PATCH, DELETE, rotate-secret): a listening
 * CLI's temporary subscription is refused (409 conflict): it is the stream's, and goes when it closes
 * (docs/decisions-webhooks.md, "Local listening"); a PATCH to a real URL would leave it unserved.
 */
export async function lastingSubscriptionInScope(
  subscriptions: Pick<SubscriptionStore, 'find'>,
  actor: Actor,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<SubscriptionRow> {
  const row = await subscriptionInScope(subscriptions, actor, id, opts);
  if (row.temporary) throw conflict('a listening CLI’s temporary subscription: it goes when its `cluster listen` stops');
  return row;
}
