import { randomBytes } from 'node:crypto';
import { connect } from 'amqplib';
import { expect, it } from 'vitest';
import { destinationScenarios, type BrokerMessage } from './support/destination-scenarios.ts';
import { until } from './support/poll.ts';
import { freePort } from './support/processes.ts';
import { startRabbitMq, type RabbitMq } from './support/rabbitmq.ts';

// Deliveries to a RabbitMQ exchange (docs/webhooks.md, "RabbitMQ (AMQP 0-9-1)") against Debian's
// rabbitmq-server, started here by PID on private ports and a private directory; "away" is that process
// stopped and started again. The test reads the messages from a durable queue bound to the exchange.
let rabbit: RabbitMq;
let closedPort = 0;
const exchange = `hooks-${randomBytes(3).toString('hex')}`;
const queue = `${exchange}.all`;
const seen: BrokerMessage[] = [];

/** Takes what the queue holds now (a connection per call: the broker restarts in between). */
async function drain(): Promise<BrokerMessage[]> {
  const conn = await connect(rabbit.url);
  try {
    const ch = await conn.createChannel();
    for (;;) {
      const m = await ch.get(queue, { noAck: true });
      if (!m) break;
      const headers = Object.fromEntries(Object.entries(m.properties.headers ?? {}).map(([k, v]) => [k, String(v)]));
      seen.push({ body: m.content.toString('utf8'), headers, key: m.fields.routingKey, messageId: m.properties.messageId });
    }
  } finally {
    await conn.close();
  }
  return [...seen];
}

destinationScenarios(
  {
    type: 'amqp',
    secrets: [],
    async setup() {
      rabbit = await startRabbitMq();
      closedPort = await freePort();
      const conn = await connect(rabbit.url);
      const ch = await conn.createChannel();
      await ch.assertExchange(exchange, 'topic', { durable: true });
      await ch.assertQueue(queue, { durable: true });
      await ch.bindQueue(queue, exchange, 'feedback.#');
      await conn.close();
    },
    async teardown() {
      await rabbit?.close();
    },
    destination: () => ({ type: 'amqp', url: rabbit.url, exchange, routingKey: 'feedback.events' }),
    unreachable: () => ({ type: 'amqp', url: `amqp://127.0.0.1:${closedPort}/`, exchange, routingKey: 'feedback.events' }),
    collect: drain,
    restart: { stop: () => rabbit.stop(), start: () => rabbit.start() },
  },
  (ctx) => {
    it('confirms each message (messageId = the delivery id); an unroutable one is a failed attempt, retried', async () => {
      const { cluster: c, subscribe, entry, deliveries } = ctx();
      const org = await c.seedOrg('amqp unroutable');
      const { id } = await subscribe(org, { type: 'amqp', url: rabbit.url, exchange, routingKey: 'nowhere' });
      await entry(org, 'unroutable');
      const [failed] = await until(
        () => deliveries(org, id),
        (d) => d[0]?.attempts >= 1,
      );
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/unroutable/);
      // Routed now (a key the queue is bound to): the retry is confirmed and arrives under the same id.
      const routed = await c.api(org.key, 'PATCH', `/webhooks/${id}`, {
        destination: { type: 'amqp', url: rabbit.url, exchange, routingKey: 'feedback.late' },
      });
      expect(routed.status).toBe(200);
      const got = await until(
        async () => (await drain()).filter((m) => m.messageId === failed.id),
        (m) => m.length > 0,
        30_000,
      );
      expect(got[0].key).toBe('feedback.late');
      expect(got[0].headers['webhook-id']).toBe(failed.id);
    }, 60_000);

    it('shows the password masked and never stores it in clear', async () => {
      const { cluster: c } = ctx();
      const org = await c.seedOrg('amqp masked');
      const password = 'amqp-password-abcdefghijkl';
      const res = await c.api(org.key, 'POST', '/webhooks', {
        destination: { type: 'amqp', url: rabbit.url, exchange, routingKey: 'x', username: 'hooks', password },
        eventNames: ['entry.created'],
      });
      expect(res.status).toBe(201);
      expect(res.body.destination).toEqual({
        type: 'amqp',
        url: rabbit.url,
        exchange,
        routingKey: 'x',
        username: 'hooks',
        password: '****ijkl',
      });
      expect(JSON.stringify(res.body)).not.toContain(password);
    });
  },
);
