import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { destinationScenarios, type BrokerMessage } from './support/destination-scenarios.ts';
import { startElasticMq, type ElasticMq } from './support/elasticmq.ts';
import { until } from './support/poll.ts';
import { freePort } from './support/processes.ts';

// Deliveries to an Amazon SQS queue (docs/webhooks.md, "Amazon SQS") against ElasticMQ, an SQS-compatible
// server from Maven Central, started here by PID on a private port; "away" is that process killed and
// started again. The test reads the queues with the AWS SDK, as a customer's consumer would.
let sqs: ElasticMq;
let client: SQSClient;
let closedPort = 0;
const queueUrl = (name: string) => `${sqs.endpoint}/000000000000/${name}`;
const credentials = { accessKeyId: 'test-access-key', secretAccessKey: 'sqs-secret-key-0123456789' };
const seen = new Map<string, BrokerMessage[]>();

/** Takes what a queue holds now (deleting it), appended to what was read before. */
async function drain(name = 'hooks'): Promise<BrokerMessage[]> {
  const list = seen.get(name) ?? [];
  seen.set(name, list);
  for (;;) {
    const res = await client
      .send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl(name),
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          WaitTimeSeconds: 0,
        }),
      )
      .catch(() => ({ Messages: [] }));
    if (!res.Messages?.length) break;
    for (const m of res.Messages) {
      const headers = Object.fromEntries(Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, String(v.StringValue)]));
      list.push({ body: m.Body ?? '', headers, key: m.Attributes?.MessageGroupId ?? null, messageId: m.MessageId });
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl(name), ReceiptHandle: m.ReceiptHandle }));
    }
  }
  return [...list];
}

destinationScenarios(
  {
    type: 'sqs',
    secrets: [credentials.secretAccessKey],
    async setup() {
      sqs = await startElasticMq(['hooks', 'hooks.fifo']);
      closedPort = await freePort();
      // A copy: the SDK marks the credentials object it is given (`$source`).
      client = new SQSClient({ region: 'eu-west-1', endpoint: sqs.endpoint, credentials: { ...credentials } });
    },
    async teardown() {
      client?.destroy();
      await sqs?.close();
    },
    destination: () => ({ type: 'sqs', queueUrl: queueUrl('hooks'), region: 'eu-west-1', ...credentials }),
    unreachable: () => ({
      type: 'sqs',
      queueUrl: `http://127.0.0.1:${closedPort}/000000000000/hooks`,
      region: 'eu-west-1',
      ...credentials,
    }),
    collect: () => drain('hooks'),
    restart: { stop: () => sqs.stop(), start: () => sqs.start() },
  },
  (ctx) => {
    it('sends a FIFO queue MessageGroupId = the entity id, in order (ordering per_entity)', async () => {
      const { cluster: c, subscribe, entry } = ctx();
      const org = await c.seedOrg('sqs fifo');
      await subscribe(
        org,
        { type: 'sqs', queueUrl: queueUrl('hooks.fifo'), region: 'eu-west-1', ...credentials },
        { ordering: 'per_entity' },
      );
      const entityId = await entry(org, 'v0');
      for (let i = 1; i <= 3; i++)
        expect((await c.api(org.key, 'PATCH', `/entries/${entityId}`, { title: `v${i}` })).status).toBe(200);
      const mine = await until(
        async () => (await drain('hooks.fifo')).filter((m) => m.key === entityId),
        (got) => got.length >= 4,
        30_000,
      );
      expect(mine.map((m) => JSON.parse(m.body).payload.title)).toEqual(['v0', 'v1', 'v2', 'v3']);
    }, 60_000);

    it('shows the secret key masked', async () => {
      const { cluster: c } = ctx();
      const org = await c.seedOrg('sqs masked');
      const res = await c.api(org.key, 'POST', '/webhooks', {
        destination: { type: 'sqs', queueUrl: queueUrl('hooks'), region: 'eu-west-1', ...credentials },
        eventNames: ['entry.created'],
      });
      expect(res.status).toBe(201);
      expect(res.body.destination).toEqual({
        type: 'sqs',
        queueUrl: queueUrl('hooks'),
        region: 'eu-west-1',
        accessKeyId: credentials.accessKeyId,
        secretAccessKey: '****6789',
      });
      expect(res.body.destinationUrl).toBe(`sqs+${queueUrl('hooks')}`);
    });
  },
);
