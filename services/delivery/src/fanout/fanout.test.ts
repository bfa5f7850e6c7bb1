import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import type { EventEnvelope } from '@cluster/contracts';
import { createFakeStores } from '../fake-stores.ts';
import type { ClaimedDelivery } from '../features/deliveries/queue-store.ts';
import { deliveryIdFor } from '../features/deliveries/ids.ts';
import { ORG, OTHER_ORG, testSubscription } from '../shared/test-fixtures.ts';
import { fanOut } from './fanout.ts';

function event(over: Partial<EventEnvelope> = {}): EventEnvelope {
  return {
    id: randomUUID(),
    eventName: 'entry.created',
    schemaVersion: 1,
    entityType: 'entry',
    entityId: randomUUID(),
    occurredAt: new Date().toISOString(),
    actorUserId: 'u1',
    organizationId: ORG,
    projectId: randomUUID(),
    payload: { title: 'Crash on login' },
    ...over,
  };
}

const hourAgo = () => new Date(Date.now() - 3_600_000);

describe('fan-out (fake stores)', () => {
  it('writes a delivery only for events the subscription’s filter matches, and counts the others', async () => {
    const stores = createFakeStores();
    const bugs = testSubscription({
      createdAt: hourAgo(),
      eventNames: ['entry.*'],
      filter: { payload: { type: { $in: ['bug_report', 'question'] } } },
    });
    const loud = testSubscription({
      createdAt: hourAgo(),
      eventNames: ['*'],
      filter: { eventName: { $startsWith: 'release.' } },
    });
    const all = testSubscription({ createdAt: hourAgo(), eventNames: ['entry.*'] });
    stores.subscriptions.rows.push(bugs, loud, all);
    const bug = event({ payload: { title: 'Crash', type: 'bug_report' } });
    const idea = event({ payload: { title: 'Dark mode', type: 'feature_request' } });
    const untyped = event({ eventName: 'entry.updated', payload: { title: 'x' } });
    const release = event({ eventName: 'release.created', entityType: 'release', payload: {} });
    expect(await fanOut(stores, [bug, idea, untyped, release], { clockSkewMs: 2000 })).toEqual({
      created: 5,
      handedOff: 0,
      filtered: 5,
    });
    const got = (subId: string) =>
      stores.deliveryQueue.rows
        .filter((r) => r.subscriptionId === subId)
        .map((r) => r.eventId)
        .sort();
    expect(got(bugs.id)).toEqual([bug.id]);
    expect(got(loud.id)).toEqual([release.id]);
    expect(got(all.id)).toEqual([bug.id, idea.id, untyped.id].sort());
    const since = hourAgo();
    expect(await stores.subscriptions.filteredSince(bugs.id, since)).toBe(2);
    expect(await stores.subscriptions.filteredSince(loud.id, since)).toBe(3);
    expect(await stores.subscriptions.filteredSince(all.id, since)).toBe(0);
  });

  it('a filter sees the delivered body: the envelope’s fields, not the internal organizationId or projectId', async () => {
    const stores = createFakeStores();
    const internal = testSubscription({ createdAt: hourAgo(), filter: { projectId: { $exist: true } } });
    const entity = testSubscription({
      createdAt: hourAgo(),
      filter: { entityType: 'entry', schemaVersion: 1, id: { $exist: false } },
    });
    stores.subscriptions.rows.push(internal, entity);
    const e = event();
    await fanOut(stores, [e], { clockSkewMs: 2000 });
    expect(stores.deliveryQueue.rows.map((r) => r.subscriptionId)).toEqual([entity.id]);
  });

  it('delivers to wildcard subscriptions: `entry.*` gets entry events only, `*` every public event, internal ones never', async () => {
    const stores = createFakeStores();
    const family = testSubscription({ createdAt: hourAgo(), eventNames: ['entry.*'] });
    const all = testSubscription({ createdAt: hourAgo(), eventNames: ['*'] });
    const both = testSubscription({ createdAt: hourAgo(), eventNames: ['entry.*', 'entry.created'] });
    stores.subscriptions.rows.push(family, all, both);
    const created = event();
    const updated = event({ eventName: 'entry.updated' });
    const release = event({ eventName: 'release.created', entityType: 'release' });
    const project = event({ eventName: 'project.created', entityType: 'project' });
    await fanOut(stores, [created, updated, release, project], { clockSkewMs: 2000 });
    const got = (subId: string) =>
      stores.deliveryQueue.rows
        .filter((r) => r.subscriptionId === subId)
        .map((r) => r.eventName)
        .sort();
    expect(got(family.id)).toEqual(['entry.created', 'entry.updated']);
    expect(got(all.id)).toEqual(['entry.created', 'entry.updated', 'release.created']);
    // Listed twice over (a name and its family): one delivery per event.
    expect(got(both.id)).toEqual(['entry.created', 'entry.updated']);
  });

  it('writes one delivery per event and matching subscription, with the subscriber envelope as its body, once', async () => {
    const stores = createFakeStores();
    const a = testSubscription({ createdAt: hourAgo() });
    const b = testSubscription({ createdAt: hourAgo(), eventNames: ['entry.created', 'entry.updated'] });
    stores.subscriptions.rows.push(
      a,
      b,
      testSubscription({ createdAt: hourAgo(), eventNames: ['release.created'] }),
      testSubscription({ createdAt: hourAgo(), enabled: false }),
      testSubscription({ createdAt: hourAgo(), deletedAt: new Date() }),
      testSubscription({ createdAt: hourAgo(), organizationId: OTHER_ORG }),
    );
    const e = event();
    expect(
      await fanOut(stores, [e, event({ eventName: 'project.created' }), event({ eventName: 'entry.updated' })], {
        clockSkewMs: 2000,
      }),
    ).toEqual({ created: 3, handedOff: 0, filtered: 0 });
    const mine = stores.deliveryQueue.rows.filter((r) => r.eventId === e.id);
    expect(mine.map((r) => r.subscriptionId).sort()).toEqual([a.id, b.id].sort());
    for (const r of mine) {
      expect(r.id).toBe(deliveryIdFor(e.id, r.subscriptionId));
      // The spec's eight fields in order, under the delivery id: no organizationId, no projectId.
      expect(r.body).toBe(
        JSON.stringify({
          id: r.id,
          eventName: 'entry.created',
          schemaVersion: 1,
          entityType: 'entry',
          entityId: e.entityId,
          occurredAt: e.occurredAt,
          actorUserId: 'u1',
          payload: { title: 'Crash on login' },
        }),
      );
    }
    // Read again (a re-read Kafka message): nothing new.
    expect(await fanOut(stores, [e], { clockSkewMs: 2000, notifier: 'me' })).toEqual({ created: 0, handedOff: 0, filtered: 0 });
    expect(stores.deliveryQueue.notified).toEqual(['']);
  });

  it('looks again for waiting ordered deliveries of the keys it wrote, after its insert, and only for ordered ones', async () => {
    const stores = createFakeStores();
    const ordered = testSubscription({ createdAt: hourAgo(), ordering: 'per_entity' });
    stores.subscriptions.rows.push(ordered, testSubscription({ createdAt: hourAgo() }));
    const looks: unknown[] = [];
    const release = stores.deliveryQueue.releaseWaiting.bind(stores.deliveryQueue);
    stores.deliveryQueue.releaseWaiting = async (keys) => {
      looks.push(keys);
      return release(keys);
    };
    const entityId = randomUUID();
    await fanOut(stores, [event({ entityId }), event({ entityId })], { clockSkewMs: 2000 });
    expect(looks).toEqual([[{ subscriptionId: ordered.id, orderKey: `entry:${entityId}` }]]);
    // Unordered subscriptions only: no look, no statement.
    ordered.enabled = false;
    await fanOut(stores, [event()], { clockSkewMs: 2000 });
    expect(looks).toHaveLength(1);
  });

  it('leaves out events from before the subscription existed, beyond the clock skew', async () => {
    const stores = createFakeStores();
    const sub = testSubscription({ createdAt: new Date('2026-01-01T00:00:10Z') });
    stores.subscriptions.rows.push(sub);
    const before = event({ occurredAt: '2026-01-01T00:00:07.999Z' });
    const withinSkew = event({ occurredAt: '2026-01-01T00:00:08.000Z' });
    expect(await fanOut(stores, [before, withinSkew], { clockSkewMs: 2000 })).toEqual({ created: 1, handedOff: 0, filtered: 0 });
    expect(stores.deliveryQueue.rows.map((r) => r.eventId)).toEqual([withinSkew.id]);
  });

  it('hands new deliveries to the local loop up to its capacity per origin, leased to it, and leaves the rest to claim', async () => {
    const stores = createFakeStores();
    const near = testSubscription({ createdAt: hourAgo() });
    const far = testSubscription({
      createdAt: hourAgo(),
      destinationUrl: 'https://far.example.com/in',
      destinationOrigin: 'https://far.example.com:443',
    });
    stores.subscriptions.rows.push(near, far);
    const accepted: ClaimedDelivery[] = [];
    const capacity = (origin: string) => (origin === near.destinationOrigin ? 2 : 0);
    const result = await fanOut(stores, [event(), event(), event()], {
      clockSkewMs: 2000,
      notifier: 'me',
      handoff: { capacity, accept: (ds) => accepted.push(...ds), leaseMs: 30_000 },
    });
    expect(result).toEqual({ created: 6, handedOff: 2, filtered: 0 });
    expect(accepted.map((d) => d.destinationOrigin)).toEqual([near.destinationOrigin, near.destinationOrigin]);
    for (const d of accepted) {
      expect(stores.deliveryQueue.rows.find((r) => r.id === d.id)).toMatchObject({
        leaseToken: d.leaseToken,
        lockedUntil: match.any(Date),
      });
      expect(d).toMatchObject({
        attempts: 0,
        firstAttemptAt: null,
        secretSealed: near.secretSealed,
        destinationUrl: near.destinationUrl,
      });
    }
    expect(stores.deliveryQueue.rows.filter((r) => !r.leaseToken)).toHaveLength(4);
    // Four were left free to claim: the other replicas (not this one) are told.
    expect(stores.deliveryQueue.notified).toEqual(['me']);
  });

  it('does not look for subscriptions when no event is in the webhook vocabulary', async () => {
    const stores = createFakeStores();
    let looked = false;
    const subscriptions = {
      ...stores.subscriptions,
      async matching() {
        looked = true;
        return [];
      },
    };
    const none = await fanOut(
      { subscriptions, deliveryQueue: stores.deliveryQueue },
      [event({ eventName: 'project.updated' }), event({ id: '' })],
      { clockSkewMs: 0 },
    );
    expect(none).toEqual({ created: 0, handedOff: 0, filtered: 0 });
    expect(looked).toBe(false);
  });
});
