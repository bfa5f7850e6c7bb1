import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '@cluster/webhook-verify';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { sql } from './support/people.ts';
import { until } from './support/poll.ts';
import { exited } from './support/processes.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

// `cluster listen` and `cluster trigger` (packages/cli, built by the test run's global setup) as child
// processes against a running cluster: the organization's events reach a local receiver signed as real
// deliveries, another organization's never do, Ctrl-C removes the temporary subscription, and a
// triggered test event arrives. docs/decisions-webhooks.md, "Local listening"; docs/webhooks.md, "Local development".

const CLI = path.resolve(import.meta.dirname, '..', 'packages', 'cli', 'dist', 'cli.js');
let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let receiver: Receiver;

/** A CLI process and what it printed so far. */
interface Cli {
  child: ChildProcess;
  out: () => string;
}

function startCli(args: string[], key: string): Cli {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, FEEDBACK_API_URL: c.baseUrl, FEEDBACK_API_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out };
}

/** Runs the CLI to its end: its exit code and output. */
async function runCli(args: string[], key: string): Promise<{ code: number | null; out: string }> {
  const cli = startCli(args, key);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), 30_000);
  await exited(cli.child);
  clearTimeout(timer);
  return { code: cli.child.exitCode, out: cli.out() };
}

const temporaryOf = async (orgId: string) =>
  (
    await sql<{ n: number }>(
      c,
      `SELECT count(*)::int AS n FROM delivery.subscriptions WHERE temporary AND "organizationId" = $1`,
      [orgId],
    )
  )[0].n;

const entryTitled = (title: string) => (r: Receiver['received'][number]) =>
  (r.body as { payload?: { title?: string } } | undefined)?.payload?.title === title;

beforeAll(async () => {
  c = await startTestCluster();
  [org, other] = await Promise.all([c.seedOrg('Listener'), c.seedOrg('Neighbour')]);
  receiver = await startReceiver('/hooks');
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await c?.stop();
});

describe('cluster listen', () => {
  it('forwards the organization’s events signed as real deliveries, never another’s; trigger reaches it; Ctrl-C removes its subscription', async () => {
    const cli = startCli(['listen', '--forward-to', `${receiver.url}`, '--events', 'entry.*'], org.key);
    let subscriptionId = '';
    try {
      const ready = await until(
        async () => /Signing secret: (whsec_\S+) \(subscription ([0-9a-f-]{36})/.exec(cli.out()),
        (m) => m !== null,
        30_000,
      );
      expect(ready, cli.out()).not.toBeNull();
      const [, secret, id] = ready!;
      subscriptionId = id;
      expect(await temporaryOf(org.orgId)).toBe(1);
      // Listed only when asked for: GET /webhooks shows the lasting subscriptions.
      expect((await c.api(org.key, 'GET', '/webhooks')).body).toMatchObject({ data: [] });
      expect((await c.api(org.key, 'GET', '/webhooks?temporary=true')).body).toMatchObject({
        data: [{ id: subscriptionId, temporary: true, eventNames: ['entry.*'] }],
      });

      // The neighbour's entry first, then ours: when ours has arrived, the neighbour's had its chance.
      const theirs = await c.api(other.key, 'POST', `/projects/${other.projectId}/entries`, {
        type: 'feedback',
        title: 'not-yours',
        description: '-',
      });
      expect(theirs.status).toBe(201);
      const ours = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
        type: 'feedback',
        title: 'listened',
        description: '-',
      });
      expect(ours.status).toBe(201);
      const [got] = await receiver.waitFor(1, entryTitled('listened'), 30_000);
      // Signed as a real delivery, verified by the published verifier with the printed secret.
      const verified = verify(got.rawBody, got.headers, secret, { scheme: 'both' });
      expect(verified).toMatchObject({ eventName: 'entry.created', scheme: 'both' });
      expect(got.body).toMatchObject({ eventName: 'entry.created', entityId: (ours.body as { id: string }).id });
      expect(receiver.received.filter(entryTitled('not-yours'))).toEqual([]);
      const theirId = (theirs.body as { id: string }).id;
      expect(receiver.received.filter((r) => (r.body as { entityId?: string }).entityId === theirId)).toEqual([]);
      // The CLI prints the receiver's status and the latency.
      const line = await until(
        async () => cli.out(),
        (o) => o.includes(verified.id),
      );
      expect(line).toMatch(new RegExp(`→ 200 entry.created \\d+ ms ${verified.id}`));

      // cluster trigger: a test event of the type asked for, to the running listener.
      const triggered = await runCli(['trigger', 'entry.updated'], org.key);
      expect(triggered, triggered.out).toMatchObject({ code: 0 });
      expect(triggered.out).toContain(`Triggered entry.updated → ${subscriptionId}`);
      const [test] = await receiver.waitFor(1, (r) => (r.body as { eventName?: string }).eventName === 'entry.updated', 30_000);
      expect(verify(test.rawBody, test.headers, secret)).toMatchObject({ eventName: 'entry.updated' });
      // With payload fields of one's own: they are what arrives; fields the event cannot carry are refused.
      const mine = await runCli(['trigger', 'entry.updated', '--payload', '{"title":"From the CLI"}'], org.key);
      expect(mine, mine.out).toMatchObject({ code: 0 });
      const [own] = await receiver.waitFor(
        1,
        (r) => (r.body as { payload?: { title?: string } }).payload?.title === 'From the CLI',
        30_000,
      );
      expect(verify(own.rawBody, own.headers, secret)).toMatchObject({ eventName: 'entry.updated' });
      const refused = await runCli(['trigger', 'entry.updated', '--payload', '{"type":"nope"}'], org.key);
      expect(refused.out).toContain('/payload/type');
      // An event the listener does not select is refused by name.
      expect((await runCli(['trigger', 'release.created'], org.key)).out).toContain('no listener selects release.created');
    } finally {
      // Ctrl-C: the stream closes and its subscription goes with it, at once (not after its lease lapses).
      cli.child.kill('SIGINT');
      await exited(cli.child);
    }
    expect(cli.child.exitCode, cli.out()).toBe(0);
    expect(
      await until(
        () => temporaryOf(org.orgId),
        (n) => n === 0,
        10_000,
      ),
    ).toBe(0);
    // Opening a listener is in the organization's audit trail, as the trigger's test calls are.
    const audited = await until(
      async () => {
        const res = await c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription&pageSize=100');
        return (res.body as { data: { entityId: string; action: string }[] }).data
          .filter((e) => e.entityId === subscriptionId)
          .map((e) => e.action)
          .sort();
      },
      (actions) => actions.length >= 3,
    );
    // Two test calls sent (the one refused for its payload is counted, not audited: nothing was tested).
    expect(audited).toEqual(['listened', 'tested', 'tested']);
  }, 120_000);

  it('refuses unknown event names before any stream, and exits 1', async () => {
    const refused = await runCli(['listen', '--forward-to', receiver.url, '--events', 'entry.nope'], org.key);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/refused: 400 unknown_event_names: entry.nope/);
    expect(await temporaryOf(org.orgId)).toBe(0);
  }, 60_000);

  it('ends the stream of a key revoked while it listens (at the next renewal), and exits 1 on the refusal', async () => {
    const { key, id } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const cli = startCli(['listen', '--forward-to', receiver.url], key);
    try {
      expect(
        await until(
          async () => cli.out(),
          (o) => o.includes('Signing secret:'),
          30_000,
        ),
      ).toContain('Signing secret:');
      await c.admin.revokeKey(id);
      // The stream is checked with the core every 20 s (LISTEN_RENEW_MS); the CLI reconnects and is refused.
      await until(
        async () => cli.child.exitCode,
        (code) => code !== null,
        45_000,
      );
      expect([cli.child.exitCode, cli.out()]).toEqual([1, expect.stringMatching(/refused: 401 key_revoked/)]);
    } finally {
      cli.child.kill('SIGINT');
      await exited(cli.child);
    }
    expect(
      await until(
        () => temporaryOf(org.orgId),
        (n) => n === 0,
        10_000,
      ),
    ).toBe(0);
  }, 90_000);

  it('caps the listeners of an organization at 5 (429)', async () => {
    const clis = Array.from({ length: 5 }, () => startCli(['listen', '--forward-to', receiver.url], other.key));
    try {
      expect(
        await until(
          () => temporaryOf(other.orgId),
          (n) => n === 5,
          30_000,
        ),
      ).toBe(5);
      const res = await fetch(`${c.baseUrl}/webhooks/listen`, { headers: { authorization: `Bearer ${other.key}` } });
      expect([res.status, ((await res.json()) as { reason: string }).reason]).toEqual([429, 'rate_limit']);
    } finally {
      for (const cli of clis) cli.child.kill('SIGINT');
      await Promise.all(clis.map((cli) => exited(cli.child)));
    }
    expect(
      await until(
        () => temporaryOf(other.orgId),
        (n) => n === 0,
        10_000,
      ),
    ).toBe(0);
  }, 90_000);
});
