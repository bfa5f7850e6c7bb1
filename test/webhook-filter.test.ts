import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_TYPES, EVENT_EXAMPLES } from '@cluster/contracts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { createReceivers, verifyServiceSignature } from './support/receiver.ts';

// A subscription's filter on the event's attributes and payload (docs/webhooks.md, "Filters"; issue 41,
// item 2), against the real cluster and real receivers: one subscription with a filter receives only the
// events whose body matches it, another without one receives them all, the filtered ones are counted in
// the first one's statistics (and written as no delivery), the test call answers whether its event passes,
// and a bad filter is a 400 pointing at its bad part, on create and on PATCH.

const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Filters');
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

type Sub = { id: string; hmacSecret: string; filter: Record<string, unknown> | null };

async function subscribe(url: string, extra: Record<string, unknown> = {}): Promise<Sub> {
  const res = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: url, eventNames: ['entry.*'], ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Sub;
}

describe('webhook filters', () => {
  it('delivers a filtered subscription only the matching events, an unfiltered one all, and counts the rest in its stats', async () => {
    const [bugsOnly, everything] = [await receivers.start(), await receivers.start()];
    const filter = {
      eventName: 'entry.created',
      payload: { type: { $in: ['bug_report', 'security'] }, title: { $startsWith: 'Crash' } },
    };
    const filtered = await subscribe(bugsOnly.url, { filter });
    expect(filtered.filter).toEqual(filter);
    expect((await c.api(org.key, 'GET', `/webhooks/${filtered.id}`)).body.filter).toEqual(filter);
    const plain = await subscribe(everything.url);
    expect(plain.filter).toBeNull();

    const project = await c.api(org.key, 'POST', '/projects', { name: 'Filtered', description: 'f' });
    expect(project.status).toBe(201);
    const entry = async (type: string, title: string) => {
      const res = await c.api(org.key, 'POST', `/projects/${project.body.id}/entries`, { type, title, description: 'd' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const crash = await entry('bug_report', 'Crash on login');
    const idea = await entry('feature_request', 'Crash reports page');
    const typo = await entry('bug_report', 'Typo in footer');
    const question = await entry('security', 'Crash after update?');
    // entry.updated: the name matches entry.*, the filter's eventName does not.
    expect((await c.api(org.key, 'PATCH', `/entries/${crash}`, { title: 'Crash on login (iOS)' })).status).toBe(200);

    const ours = [crash, idea, typo, question];
    const mine = (r: { body: { entityId?: string } }) => ours.includes(r.body.entityId ?? '');
    // Every event reached the unfiltered subscription: the fan-out of each is done (one batch writes both).
    const all = await everything.waitFor(5, mine);
    expect(all.map((r) => `${r.body.eventName} ${r.body.entityId}`).sort()).toEqual(
      [...ours.map((id) => `entry.created ${id}`), `entry.updated ${crash}`].sort(),
    );
    const got = await bugsOnly.waitFor(2, mine);
    expect(got.map((r) => r.body.entityId).sort()).toEqual([crash, question].sort());
    expect(verifyServiceSignature(filtered.hmacSecret, got[0])).toBe(true);

    // Three events were kept back: no delivery records, a count in the statistics.
    const stats = await until(
      async () => (await c.api(org.key, 'GET', `/webhooks/${filtered.id}/stats`)).body,
      (b) => b.filtered === 3,
    );
    expect(stats).toMatchObject({ filtered: 3, deliveries: { total: 2 } });
    const listed = await c.api(org.key, 'GET', `/webhooks/${filtered.id}/deliveries`);
    expect(listed.body.data.map((d: { eventName: string }) => d.eventName)).toEqual(['entry.created', 'entry.created']);
    expect((await c.api(org.key, 'GET', `/webhooks/${plain.id}/stats?window=7d`)).body).toMatchObject({
      filtered: 0,
      deliveries: { total: 5 },
    });
    expect(bugsOnly.received.filter(mine)).toHaveLength(2);
  });

  it('answers whether the test event passes the filter, and sends it only when it does', async () => {
    const r = await receivers.start();
    const example = EVENT_EXAMPLES.get('entry.created')!.payload as { type: string };
    const sub = await subscribe(r.url, { filter: { payload: { type: example.type } } });
    const passes = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`, { eventName: 'entry.created' });
    expect(passes.status).toBe(200);
    expect(passes.body).toMatchObject({ filterMatched: true, eventName: 'entry.created' });
    expect(passes.body.deliveryId).toEqual(expect.any(String));
    await r.waitFor(1);

    const patched = await c.api(org.key, 'PATCH', `/webhooks/${sub.id}`, {
      filter: { payload: { type: { $neq: example.type } } },
    });
    expect(patched.status).toBe(200);
    const kept = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`, { eventName: 'entry.created' });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ filterMatched: false, deliveryId: null });
    expect(kept.body.deliveryError).toContain('filter');
    // webhook.test, the connectivity check, goes out whatever the filter says.
    const ping = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`);
    expect(ping.body.deliveryId).toEqual(expect.any(String));
    expect(ping.body).not.toHaveProperty('filterMatched');
    const both = await r.waitFor(2);
    expect(both.map((x) => x.body.eventName)).toEqual(['entry.created', 'webhook.test']);
    // Payload fields of one's own try the filter on them, and are what the receiver gets.
    const other = ENTRY_TYPES.find((t) => t !== example.type)!;
    const mine = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`, {
      eventName: 'entry.created',
      payload: { type: other },
    });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ filterMatched: true, deliveryId: expect.any(String) });
    expect((await r.waitFor(3))[2].body.payload).toMatchObject({ type: other });
    // Ones the event could never carry: 400, naming them.
    const bad = await c.api(org.key, 'POST', `/webhooks/${sub.id}/test`, {
      eventName: 'entry.created',
      payload: { type: 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ reason: 'validation_error', details: { errors: [{ path: '/payload/type' }] } });

    const cleared = await c.api(org.key, 'PATCH', `/webhooks/${sub.id}`, { filter: null });
    expect(cleared.body.filter).toBeNull();
  });

  it('refuses a bad filter with a 400 validation_error naming its bad part, on create and PATCH', async () => {
    const create = (filter: unknown) =>
      c.api(org.key, 'POST', '/webhooks', { destinationUrl: 'https://example.com/f', eventNames: ['entry.*'], filter });
    const errorsOf = (res: {
      status: number;
      body: { reason: string; details: { errors: { path: string; message: string }[] } };
    }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      return res.body.details.errors;
    };
    expect(errorsOf(await create({ payload: { status: { $regex: '^done' } } }))).toEqual([
      { path: '/filter/payload/status/$regex', message: expect.stringContaining('unknown operator $regex') },
    ]);
    expect(errorsOf(await create({ payload: { amount: { $gte: '100', $lt: true } } }))).toEqual([
      { path: '/filter/payload/amount/$lt', message: 'must be a number or a string, not a boolean' },
    ]);
    let deep: Record<string, unknown> = { z: 1 };
    for (let i = 0; i < 9; i++) deep = { a: deep };
    expect(errorsOf(await create(deep))).toEqual([{ path: '/filter/a/a/a/a/a/a/a/a/a', message: 'nests deeper than 8 levels' }]);
    expect(errorsOf(await create({ payload: { title: 'x'.repeat(5000) } }))).toEqual([
      { path: '/filter', message: expect.stringMatching(/^is \d+ bytes of JSON; at most 4096$/) },
    ]);
    // Not an object at all: the operation's schema refuses it at the gateway.
    expect(errorsOf(await create(['x'])).map((e) => e.path)).toEqual(['/filter']);

    const sub = await subscribe('https://example.com/f2');
    const patch = await c.api(org.key, 'PATCH', `/webhooks/${sub.id}`, { filter: { $or: [] } });
    expect(errorsOf(patch)).toEqual([{ path: '/filter/$or', message: 'must not be empty' }]);
    expect((await c.api(org.key, 'GET', `/webhooks/${sub.id}`)).body.filter).toBeNull();
  });
});
