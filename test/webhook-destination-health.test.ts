import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { freePort } from './support/processes.ts';

// Failing and auto-disable (docs/webhooks.md, "Failing endpoints") for every broker destination type: the
// health rules count failed attempts whatever sent them, so a Kafka, RabbitMQ or SQS destination that keeps
// failing is announced failing, then disabled, as an HTTP endpoint is. No broker runs here: each
// subscription points at a closed port.
let c: TestCluster;
let org: SeededOrg;
let closed = 0;

beforeAll(async () => {
  c = await startTestCluster({
    env: {
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_STEP_MS: '300',
      WEBHOOK_FAILING_AFTER_FAILURES: '3',
      WEBHOOK_DISABLE_AFTER_HOURS: '0.002',
      WEBHOOK_HEALTH_SWEEP_MS: '300',
      WEBHOOK_TIMEOUT_MS: '2000',
    },
  });
  org = await c.seedOrg('destination health');
  closed = await freePort();
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

it('announces a failing broker destination and disables it, for each type', async () => {
  const destinations = [
    { type: 'kafka', brokers: [`127.0.0.1:${closed}`], topic: 'hooks' },
    { type: 'amqp', url: `amqp://127.0.0.1:${closed}/`, exchange: 'hooks', routingKey: 'k' },
    { type: 'sqs', queueUrl: `http://127.0.0.1:${closed}/000000000000/hooks`, region: 'eu-west-1' },
  ];
  const ids: string[] = [];
  for (const destination of destinations) {
    const res = await c.api(org.key, 'POST', '/webhooks', { destination, eventNames: ['entry.created'] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.id as string);
  }
  expect(
    (await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { title: 'x', description: '-', type: 'feedback' }))
      .status,
  ).toBe(201);
  const shown = await until(
    () => Promise.all(ids.map(async (id) => (await c.api(org.key, 'GET', `/webhooks/${id}`)).body)),
    (subs) => subs.every((s) => s.enabled === false),
    40_000,
  );
  for (const s of shown) expect(s).toMatchObject({ enabled: false, disabledReason: 'failing' });
  expect(shown.every((s) => s.consecutiveFailures >= 3)).toBe(true);
  const notices = await c.events.waitFor(
    (e) => e.eventName === 'webhook.subscription.disabled' && ids.includes(e.entityId),
    3,
    20_000,
  );
  expect(new Set(notices.map((e) => e.entityId))).toEqual(new Set(ids));
}, 90_000);
