import { randomUUID } from 'node:crypto';
import type { Knex } from '@cluster/db';
import { isEventName, type EventEnvelope } from '@cluster/contracts';
import type { DeliveryStore, NewDelivery } from '../deliveries/store.ts';
import { webhookEnvelope } from '../deliveries/envelope.ts';

/**
 * Matches domain events to the enabled subscriptions of their organization that
 * list their name, and writes one delivery per (event, subscription). The unique
 * (eventId, subscriptionId) key makes a re-read message create nothing new.
 * Each delivery's body is serialised here, once; every attempt sends those bytes.
 * A subscription gets events that occurred after it was created, so replaying
 * the topic never sends it history. `clockSkewMs` is the tolerance between the
 * core's clock (an event's occurredAt) and the database's (a subscription's
 * createdAt): events up to that long before the subscription still reach it.
 */
export async function fanOut(
  db: Knex, store: DeliveryStore, events: EventEnvelope[], opts: { notifier?: string; clockSkewMs: number },
): Promise<number> {
  const subscribable = events.filter((e) => e.organizationId && e.id && isEventName(e.eventName));
  if (!subscribable.length) return 0;
  const orgs = [...new Set(subscribable.map((e) => e.organizationId))];
  const names = [...new Set(subscribable.map((e) => e.eventName))];
  const subs: { id: string; organizationId: string; eventNames: string[]; createdAt: Date }[] = await db('delivery.subscriptions')
    .whereIn('organizationId', orgs)
    .where({ enabled: true })
    .whereNull('deletedAt')
    .whereRaw('"eventNames" && ?::text[]', [names])
    .select('id', 'organizationId', 'eventNames', 'createdAt');
  if (!subs.length) return 0;
  const byOrg = new Map<string, typeof subs>();
  for (const s of subs) byOrg.set(s.organizationId, [...(byOrg.get(s.organizationId) ?? []), s]);
  const rows: NewDelivery[] = [];
  for (const e of subscribable) {
    for (const s of byOrg.get(e.organizationId) ?? []) {
      if (!s.eventNames.includes(e.eventName)) continue;
      // Events from before the subscription existed (a replayed topic) are not its business.
      if (Date.parse(e.occurredAt) < new Date(s.createdAt).getTime() - opts.clockSkewMs) continue;
      const id = randomUUID();
      rows.push({
        id, organizationId: e.organizationId, subscriptionId: s.id, eventId: e.id, eventName: e.eventName,
        body: JSON.stringify(webhookEnvelope(id, e)),
      });
    }
  }
  return store.insertMany(rows, opts.notifier ?? '');
}
