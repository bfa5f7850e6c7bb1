import { notFound } from '@cluster/platform';
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
