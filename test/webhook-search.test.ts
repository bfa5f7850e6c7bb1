import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';

// Finding what did not arrive (docs/webhooks.md; issue 41, item 5), against the real cluster and real
// receivers: one that fails every delivery (503; the default retry schedule keeps them `failed`) and
// one that takes them. The delivery search by status, event name, subscription and createdAt window, per
// subscription and organization-wide, the undelivered summary, their 400s, another organization's
// isolation, and the same over the tool-protocol endpoint.

const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let down: Receiver;
let up: Receiver;
let failingHook: string;
let healthyHook: string;
let otherHook: string;
const mcp: Client[] = [];

type Delivery = { id: string; subscriptionId: string; eventName: string; status: string; createdAt: string };

beforeAll(async () => {
  c = await startTestCluster();
  [org, other] = [await c.seedOrg('Search'), await c.seedOrg('Search other')];
  [down, up] = [await receivers.start(), await receivers.start()];
  down.respond(() => ({ status: 503, body: 'down' }));
  const hook = async (who: SeededOrg, url: string) =>
    (await c.api(who.key, 'POST', '/webhooks', { destinationUrl: url, eventNames: ['entry.created'] })).body.id as string;
  failingHook = await hook(org, down.url);
  healthyHook = await hook(org, up.url);
  otherHook = await hook(other, down.url);
}, 120_000);
afterAll(async () => {
  for (const client of mcp) await client.close();
  await receivers.closeAll();
  await c?.stop();
});

const entry = (who: SeededOrg, title: string) =>
  c.api(who.key, 'POST', `/projects/${who.projectId}/entries`, { title, description: '-', type: 'feedback' });
const list = async (who: SeededOrg, path: string) => {
  const res = await c.api(who.key, 'GET', path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: Delivery[]; total: number };
};

describe('finding what did not arrive', () => {
  let failed: Delivery[];

  it('setup: two events, each failing at one subscription and delivered at the other; one event of another organization', async () => {
    // One after the other: deliveries fanned out in one transaction would share their createdAt.
    for (const [i, title] of ['first', 'second'].entries()) {
      expect((await entry(org, title)).status).toBe(201);
      await up.waitFor(i + 1);
    }
    expect((await entry(other, 'theirs')).status).toBe(201);
    failed = (
      await until(
        () => list(org, '/webhook-deliveries?status=failed'),
        (r) => r.total === 2,
      )
    ).data;
    expect(failed).toHaveLength(2);
  });

  it('finds the failed deliveries organization-wide and per subscription, never another organization’s', async () => {
    expect(failed.map((d) => [d.subscriptionId, d.status, d.eventName])).toEqual([
      [failingHook, 'failed', 'entry.created'],
      [failingHook, 'failed', 'entry.created'],
    ]);
    const succeeded = await until(
      () => list(org, '/webhook-deliveries?status=succeeded'),
      (r) => r.total === 2,
    );
    expect(succeeded.data.map((d) => d.subscriptionId)).toEqual([healthyHook, healthyHook]);
    const all = await list(org, '/webhook-deliveries');
    expect(all.total).toBe(4);
    expect(all.data.some((d) => d.subscriptionId === otherHook)).toBe(false);
    const perHook = await list(org, `/webhooks/${failingHook}/deliveries?status=failed`);
    expect(perHook.data.map((d) => d.id)).toEqual(failed.map((d) => d.id));
    expect((await list(org, `/webhooks/${healthyHook}/deliveries?status=failed`)).total).toBe(0);
    const bySubscription = await list(org, `/webhook-deliveries?subscriptionId=${healthyHook}`);
    expect(bySubscription.data.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    // The other organization sees its own failure only.
    const theirs = await until(
      () => list(other, '/webhook-deliveries?status=failed'),
      (r) => r.total === 1,
    );
    expect(theirs.data.map((d) => d.subscriptionId)).toEqual([otherHook]);
  });

  it('bounds createdAt with since (included) and until (excluded), and filters by event name', async () => {
    const [newer, older] = failed;
    const window = async (query: string) =>
      (await list(org, `/webhooks/${failingHook}/deliveries?${query}`)).data.map((d) => d.id);
    expect(await window(`status=failed&since=${newer.createdAt}`)).toEqual([newer.id]);
    expect(await window(`status=failed&until=${newer.createdAt}`)).toEqual([older.id]);
    expect(await window(`since=${older.createdAt}&until=${newer.createdAt}`)).toEqual([older.id]);
    const later = new Date(Date.parse(newer.createdAt) + 1).toISOString();
    expect(await window(`since=${encodeURIComponent(later)}`)).toEqual([]);
    // An offset other than Z is the same instant.
    const offset = newer.createdAt.replace('Z', '+00:00');
    expect(
      (await list(org, `/webhook-deliveries?status=failed&since=${encodeURIComponent(offset)}`)).data.map((d) => d.id),
    ).toEqual([newer.id]);
    expect((await c.api(org.key, 'POST', `/webhooks/${healthyHook}/test`)).status).toBe(200);
    const tests = await list(org, '/webhook-deliveries?eventName=webhook.test');
    expect(tests.data.map((d) => [d.subscriptionId, d.eventName])).toEqual([[healthyHook, 'webhook.test']]);
    expect((await list(org, '/webhook-deliveries?eventName=entry.created')).total).toBe(4);
  });

  it('counts the undelivered events of the organization, in all and by subscription', async () => {
    const summary = await c.api(org.key, 'GET', '/webhook-deliveries/summary');
    expect(summary.status).toBe(200);
    const oldest = failed[1].createdAt;
    expect(summary.body).toEqual({
      since: null,
      until: null,
      undelivered: { total: 2, pending: 0, failed: 2, dead_letter: 0, oldestCreatedAt: oldest },
      subscriptions: [{ subscriptionId: failingHook, total: 2, pending: 0, failed: 2, dead_letter: 0, oldestCreatedAt: oldest }],
    });
    const windowed = await c.api(org.key, 'GET', `/webhook-deliveries/summary?since=${failed[0].createdAt}`);
    expect(windowed.body).toMatchObject({ since: failed[0].createdAt, undelivered: { total: 1, failed: 1 } });
    const healthy = await c.api(org.key, 'GET', `/webhook-deliveries/summary?subscriptionId=${healthyHook}`);
    expect(healthy.body).toMatchObject({ undelivered: { total: 0, oldestCreatedAt: null }, subscriptions: [] });
    const theirs = await c.api(other.key, 'GET', '/webhook-deliveries/summary');
    expect(theirs.body).toMatchObject({ undelivered: { total: 1, failed: 1 }, subscriptions: [{ subscriptionId: otherHook }] });
  });

  it('answers another organization’s subscription 404, everywhere', async () => {
    for (const path of [
      `/webhook-deliveries?subscriptionId=${otherHook}`,
      `/webhook-deliveries/summary?subscriptionId=${otherHook}`,
      `/webhooks/${otherHook}/deliveries?status=failed`,
    ]) {
      const res = await c.api(org.key, 'GET', path);
      expect([path, res.status, res.body.reason]).toEqual([path, 404, 'not_found']);
    }
  });

  it('refuses a bad status, time or subscription id with 400 validation_error naming the parameter', async () => {
    const problems = async (path: string) => {
      const res = await c.api(org.key, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      return (res.body.details as { errors: { path: string; message: string }[] }).errors;
    };
    expect(await problems('/webhook-deliveries?status=lost')).toEqual([
      { path: 'status', message: 'must be one of: pending, succeeded, failed, dead_letter' },
    ]);
    expect((await problems(`/webhooks/${failingHook}/deliveries?since=yesterday`)).map((p) => p.path)).toEqual(['since']);
    // RFC 3339 wants an offset.
    expect((await problems('/webhook-deliveries?until=2026-01-01T00:00:00')).map((p) => p.path)).toEqual(['until']);
    expect((await problems('/webhook-deliveries/summary?since=2026-13-01T00:00:00Z')).map((p) => p.path)).toEqual(['since']);
    expect(await problems('/webhook-deliveries?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z')).toEqual([
      { path: 'until', message: 'must be later than since' },
    ]);
    expect(await problems('/webhook-deliveries/summary?since=2026-01-01T00:00:00Z&until=2026-01-01T00:00:00Z')).toEqual([
      { path: 'until', message: 'must be later than since' },
    ]);
    expect((await problems('/webhook-deliveries?subscriptionId=nope')).map((p) => p.path)).toEqual(['subscriptionId']);
  });

  it('offers the same over the tool-protocol endpoint', async () => {
    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(c.baseUrl.replace('/api/v1', '/mcp')), {
        requestInit: { headers: { authorization: `Bearer ${org.key}` } },
      }),
    );
    mcp.push(client);
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = res.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      return { isError: res.isError === true, body: JSON.parse(text) as Record<string, unknown> };
    };
    const found = await call('search_webhook_deliveries', { status: 'failed' });
    expect(found.isError).toBe(false);
    expect((found.body.data as Delivery[]).map((d) => d.id)).toEqual(failed.map((d) => d.id));
    const windowed = await call('search_webhook_deliveries', { subscriptionId: failingHook, until: failed[0].createdAt });
    expect((windowed.body.data as Delivery[]).map((d) => d.id)).toEqual([failed[1].id]);
    const summary = await call('webhook_delivery_summary', {});
    expect(summary.body).toEqual((await c.api(org.key, 'GET', '/webhook-deliveries/summary')).body);
    const refused = await call('search_webhook_deliveries', { status: 'lost' });
    expect(refused).toMatchObject({ isError: true, body: { reason: 'validation_error' } });
    const foreign = await call('webhook_delivery_summary', { subscriptionId: otherHook });
    expect(foreign).toMatchObject({ isError: true, body: { reason: 'not_found' } });
  });
});
