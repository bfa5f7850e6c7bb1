import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { until } from '../support/poll.ts';
import { startProcessCluster, type ProcessCluster } from '../support/process-cluster.ts';
import {
  apiOf,
  createEntry,
  createProject,
  expectExactlyOnce,
  readyz,
  subscriber,
  type Api,
  type Answer,
  type Subscriber,
} from './api.ts';
import { privatePostgres, type PrivatePostgres } from './support.ts';

// Postgres frozen or down (docs/runbook.md, "When a dependency fails"): every call that needs it answers
// 503 in the spec's error shape within a bounded time (the statement and acquire timeouts, set short
// here), never hangs and never 500s; the backends go unready while the gateway stays ready; the
// pools recover by themselves when it returns, and the webhooks of the writes after it arrive.
// Real processes: the services and a Postgres server of the test's own, frozen (SIGSTOP to the server
// and every backend), then killed (-9) and restarted on the same data.

const STATEMENT_MS = 2000;
const ACQUIRE_MS = 2000;
/** The bound a caller waits at most: one acquire or one statement plus its client margin, and slack for a busy machine. */
const ANSWER_WITHIN_MS = STATEMENT_MS + 1000 + ACQUIRE_MS + 2000;

let pg: PrivatePostgres;
let cluster: ProcessCluster;
let api: Api;
let subscribers: Subscriber[];
let projectId: string;

beforeAll(async () => {
  pg = await privatePostgres();
  await pg.start();
  cluster = await startProcessCluster('pgdown', {
    postgresUrl: pg.url,
    env: {
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
      WEBHOOK_RETRY_BASE_MS: '200',
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
      DB_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS),
    },
  });
  const { key } = await cluster.newOrg('Postgres Outage Org');
  api = apiOf(cluster.baseUrl, key);
  projectId = await createProject(api, 'Postgres outage');
  subscribers = [await subscriber(api, ['entry.created'])];
  await expectExactlyOnce(subscribers, [await createEntry(api, projectId, 'before')]);
}, 240_000);

beforeEach(() => onTestFailed(() => console.error(cluster.tails())));

afterAll(async () => {
  pg?.thaw();
  for (const s of subscribers ?? []) await s.receiver.close();
  await cluster?.stop();
  await pg?.stop();
  pg?.remove();
});

/** 503 unavailable in the spec's error shape, within the bound: never a hang, never a 500. */
function expectUnavailable(res: Answer, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(503);
  expect(res.body).toMatchObject({ reason: 'unavailable', message: expect.any(String) });
  expect(res.ms, what).toBeLessThan(ANSWER_WITHIN_MS);
}

/** While Postgres is out: reads and writes 503 fast, backends unready, the gateway ready with its own documents. */
async function answersWithoutPostgres(): Promise<void> {
  expectUnavailable(await api('GET', `/projects/${projectId}/entries`), 'a read');
  expectUnavailable(
    await api('POST', `/projects/${projectId}/entries`, { type: 'feedback', title: 't', description: 'd' }),
    'a write',
  );
  expectUnavailable(await api('GET', '/webhooks'), 'a read of the delivery service');
  // Several at once (more than a pool's idle connections): each is bounded, none waits behind another forever.
  const burst = await Promise.all(Array.from({ length: 12 }, () => api('GET', `/projects/${projectId}`)));
  for (const res of burst) expectUnavailable(res, 'a read among 12');

  for (const port of [cluster.core.port, cluster.delivery.port]) {
    const r = await until(
      () => readyz(port),
      (x) => x.status === 503,
      10_000,
    );
    expect(r.status).toBe(503);
    expect(r.body.checks.postgres).toBe(false);
  }
  expect((await readyz(cluster.gateway.port)).status).toBe(200);
  const doc = await fetch(`${cluster.baseUrl}/openapi.json`);
  expect(doc.status).toBe(200);
}

/** After Postgres is back: the pools recover by themselves; writes' webhooks arrive once each. */
async function recovers(tag: string): Promise<void> {
  const back = await until(
    () => api('GET', `/projects/${projectId}/entries`),
    (r) => r.status === 200,
    60_000,
  );
  expect(back.status).toBe(200);
  for (const port of [cluster.core.port, cluster.delivery.port]) {
    expect(
      (
        await until(
          () => readyz(port),
          (x) => x.status === 200,
          30_000,
        )
      ).status,
    ).toBe(200);
  }
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await createEntry(api, projectId, `${tag} ${i}`));
  await expectExactlyOnce(subscribers, ids);
}

describe('fault: Postgres frozen or down', () => {
  it('frozen (SIGSTOP): calls answer 503 within the bound, and the pools recover once it thaws', async () => {
    pg.freeze();
    try {
      await answersWithoutPostgres();
    } finally {
      pg.thaw();
    }
    await recovers('after the freeze');
  }, 240_000);

  it('killed (-9) and restarted: calls answer 503 fast while it is down, and the pools recover once it is back', async () => {
    await pg.kill9();
    await answersWithoutPostgres();
    await pg.start();
    await recovers('after the restart');
  }, 240_000);
});
