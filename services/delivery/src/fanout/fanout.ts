import { randomUUID } from 'node:crypto';
import {
  isEventName,
  matchesWebhookFilter,
  selectorsOf,
  subscribesTo,
  webhookFilterInput,
  type EventEnvelope,
  type WebhookFilterInput,
} from '@cluster/contracts';
import { webhookEnvelope } from '../features/deliveries/envelope.ts';
import { deliveryIdFor } from '../features/deliveries/ids.ts';
import type { ClaimedDelivery, NewDelivery, OrderedKey } from '../features/deliveries/queue-store.ts';
import type { FanoutSubscription } from '../features/subscriptions/store.ts';
import type { Stores } from '../stores.ts';

/**
 * The local delivery loop (dispatch/dispatcher.ts), offered new deliveries straight
 * from the fan-out: they are inserted already leased to this replica and sent
 * without a claim round trip.
 */
export interface Handoff {
  /** How many more deliveries to this destination origin the loop takes now. */
  capacity(origin: string): number;
  /** Takes deliveries inserted under lease for it. */
  accept(deliveries: ClaimedDelivery[]): void;
  leaseMs: number;
}

/** How the fan-out names its notifications, dates subscriptions and hands deliveries over. */
export interface FanOutOptions {
  /** This process's id in the due-notification, so its own loop ignores it. */
  notifier?: string;
  /**
   * A subscription gets events that occurred after it was created, so replaying
   * the topic never sends it history. This is the tolerance between the core's
   * clock (an event's occurredAt) and the database's (a subscription's
   * createdAt): events up to that long before the subscription still reach it.
   */
  clockSkewMs: number;
  handoff?: Handoff;
  /** The W3C trace context an event came with (its Kafka message's traceparent header). */
  traceparentOf?: (e: EventEnvelope) => string | undefined;
}

/**
 * Matches domain events to the enabled subscriptions of their organization that
 * list their name or a wildcard covering it, and whose filter (if any) the event's body matches
 * (docs/webhooks.md, "Filters"), and writes one delivery per (event, subscription). Its id is
 * derived from that pair, so a re-read message creates nothing new. An event a filter keeps back
 * writes no delivery; it is added to the subscription's filtered count of the hour (one statement a batch).
 * Each delivery's body is serialised here, once; every attempt sends those bytes.
 * Up to the local delivery loop's capacity, new deliveries are inserted under its
 * lease and handed to it directly; the rest are left due for any replica to claim.
 * Returns how many deliveries were new, and how many of them went to the local loop.
 */
/** A subscription whose deliveries only the claim may lease (docs/decisions-webhooks.md, "Throttling"). */
function throttledOrPaused(s: FanoutSubscription): boolean {
  return (
    (s.rateLimit ?? null) !== null ||
    (s.maxInFlight ?? null) !== null ||
    (s.pausedUntil ? new Date(s.pausedUntil).getTime() > Date.now() : false)
  );
}

export async function fanOut(
  stores: Pick<Stores, 'subscriptions' | 'deliveryQueue'>,
  events: EventEnvelope[],
  opts: FanOutOptions,
): Promise<{ created: number; handedOff: number; filtered: number }> {
  const none = { created: 0, handedOff: 0, filtered: 0 };
  const subscribable = events.filter((e) => e.organizationId && e.id && isEventName(e.eventName));
  if (!subscribable.length) return none;
  const orgs = [...new Set(subscribable.map((e) => e.organizationId))];
  // Exact names and the wildcards that cover them (`entry.*`, `*`): the SQL overlap finds both.
  const selectors = [...new Set(subscribable.flatMap((e) => selectorsOf(e.eventName)))];
  const subs = await stores.subscriptions.matching(orgs, selectors);
  if (!subs.length) return none;
  const byOrg = new Map<string, FanoutSubscription[]>();
  for (const s of subs) byOrg.set(s.organizationId, [...(byOrg.get(s.organizationId) ?? []), s]);
  const capacity = new Map<string, number>();
  const handed = new Map<string, ClaimedDelivery>();
  const rows: NewDelivery[] = [];
  const filtered = new Map<string, number>();
  for (const e of subscribable) {
    // The deliveries' time and partition key: the event's own, the same at every fan-out of it (migration 018).
    const occurred = Date.parse(e.occurredAt);
    const createdAt = Number.isFinite(occurred) ? new Date(occurred) : null;
    // What a filter sees: the body every subscription of the event would receive, less its delivery id.
    let view: WebhookFilterInput | undefined;
    for (const s of byOrg.get(e.organizationId) ?? []) {
      if (!subscribesTo(s.eventNames, e.eventName)) continue;
      // Events from before the subscription existed (a replayed topic) are not its business.
      if (Date.parse(e.occurredAt) < new Date(s.createdAt).getTime() - opts.clockSkewMs) continue;
      if (s.filter) {
        view ??= webhookFilterInput(webhookEnvelope('', e));
        if (!matchesWebhookFilter(s.filter, view)) {
          filtered.set(s.id, (filtered.get(s.id) ?? 0) + 1);
          continue;
        }
      }
      const id = deliveryIdFor(e.id, s.id);
      const row: NewDelivery = {
        id,
        organizationId: e.organizationId,
        subscriptionId: s.id,
        eventId: e.id,
        eventName: e.eventName,
        body: JSON.stringify(webhookEnvelope(id, e)),
        traceparent: opts.traceparentOf?.(e) ?? null,
        orderKey: s.ordering === 'per_entity' ? `${e.entityType}:${e.entityId}` : null,
        createdAt,
      };
      // An ordered delivery may have to wait for its turn: the claim decides, never the handoff. A temporary
      // subscription's go down its listener's stream (features/listen), never over HTTP.
      // A throttled or paused subscription's deliveries wait for the claim, which applies its limits across replicas.
      // A row without its event's time (now, the database's) is left to the claim too, which returns the time
      // that the record of its attempt names (migration 018).
      if (opts.handoff && createdAt && !row.orderKey && !s.temporary && !throttledOrPaused(s)) {
        const free = capacity.get(s.destinationOrigin) ?? opts.handoff.capacity(s.destinationOrigin);
        if (free > 0) {
          row.leaseToken = randomUUID();
          handed.set(id, {
            id,
            createdAt,
            organizationId: row.organizationId,
            subscriptionId: s.id,
            eventName: row.eventName,
            body: row.body,
            attempts: 0,
            firstAttemptAt: null,
            leaseToken: row.leaseToken,
            destinationUrl: s.destinationUrl,
            destinationOrigin: s.destinationOrigin,
            secretSealed: s.secretSealed,
            previousSecretSealed: s.previousSecretSealed ?? null,
            previousSecretUntil: s.previousSecretUntil ?? null,
            receiverSealed: s.receiverSealed ?? null,
            traceparent: row.traceparent ?? null,
          });
        }
        capacity.set(s.destinationOrigin, free - 1);
      }
      rows.push(row);
    }
  }
  const inserted = await stores.deliveryQueue.insertMany(rows, { notifier: opts.notifier, leaseMs: opts.handoff?.leaseMs });
  // An ordered delivery written to wait behind one whose end was being recorded at that moment: that
  // record's release could not see it, so look again now that it is committed (docs/decisions-webhooks.md,
  // "Ordering is a chain"). Every ordered row of the batch, inserted now or before: a batch read again after a
  // failure here looks again too.
  const ordered = uniqueKeys(rows.filter((r) => r.orderKey));
  if (ordered.length) await stores.deliveryQueue.releaseWaiting(ordered);
  const mine = [...handed.values()].filter((d) => inserted.has(d.id));
  if (mine.length) opts.handoff!.accept(mine);
  // After the deliveries: a batch read again (a crash before its offsets were committed) adds its count again.
  if (filtered.size) await stores.subscriptions.addFiltered(filtered, new Date());
  const kept = [...filtered.values()].reduce((a, b) => a + b, 0);
  return { created: inserted.size, handedOff: mine.length, filtered: kept };
}

/** The distinct ordered keys of `rows`. */
function uniqueKeys(rows: NewDelivery[]): OrderedKey[] {
  const keys = new Map<string, OrderedKey>();
  for (const r of rows)
    keys.set(`${r.subscriptionId}\n${r.orderKey}`, { subscriptionId: r.subscriptionId, orderKey: r.orderKey! });
  return [...keys.values()];
}
