import tls from 'node:tls';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { createGuardedLookup } from './address-guard.ts';
import {
  createConnectionCache,
  describeError,
  failure,
  refusedLiteral,
  settingsKey,
  within,
  type AmqpDestination,
  type Destination,
  type DestinationOptions,
} from './destination.ts';

/** A connection with its confirm channel, and the message ids the broker returned as unroutable. */
interface Publisher {
  connection: ChannelModel;
  channel: ConfirmChannel;
  returned: Set<string>;
}

/**
 * Deliveries to a RabbitMQ (AMQP 0-9-1) exchange (docs/webhooks.md, "RabbitMQ (AMQP 0-9-1)"): one connection
 * and confirm channel per destination, kept while used, closed after `idleMs` unused, when its settings change,
 * or when the broker closes it. A delivery succeeds when the broker confirms the message (publisher confirms);
 * a message no queue takes (`mandatory`, returned) is a failure, retried like a refused HTTP delivery, never lost
 * in silence. Persistent messages; the AMQP headers carry the signature, `messageId` the delivery id.
 */
export function createAmqpDestination(opts: DestinationOptions): Destination<AmqpDestination> {
  const publishers = createConnectionCache<Publisher>({
    idleMs: opts.idleMs ?? 60_000,
    close: (p) => p.connection.close(),
  });

  const open = async (key: string, d: AmqpDestination): Promise<Publisher> => {
    const url = new URL(d.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const refused = refusedLiteral(host, opts.allowPrivate);
    if (refused) throw new Error(refused);
    const secure = url.protocol === 'amqps:';
    const connection = await within(
      opts.timeoutMs,
      'connecting to the AMQP server',
      connect(
        {
          protocol: secure ? 'amqps' : 'amqp',
          hostname: host,
          port: Number(url.port) || (secure ? 5671 : 5672),
          vhost: decodeURIComponent(url.pathname.slice(1)) || '/',
          username: d.username ?? 'guest',
          password: d.password ?? 'guest',
          heartbeat: 30,
        },
        {
          lookup: createGuardedLookup(opts.allowPrivate),
          timeout: opts.timeoutMs,
          ...(secure && d.ca ? { ca: [...tls.getCACertificates('default'), d.ca] } : {}),
        },
      ),
    );
    try {
      const channel = await connection.createConfirmChannel();
      const publisher: Publisher = { connection, channel, returned: new Set() };
      channel.on('return', (m: { properties: { messageId?: string } }) => {
        if (m.properties.messageId) publisher.returned.add(m.properties.messageId);
      });
      // A closed channel (an unknown exchange closes it) or connection is not kept: the next attempt opens another.
      const forget = () => publishers.drop(key, publisher);
      channel.on('close', forget);
      channel.on('error', () => {});
      connection.on('close', forget);
      connection.on('error', () => {});
      return publisher;
    } catch (err) {
      await connection.close().catch(() => {});
      throw err;
    }
  };

  const publish = (p: Publisher, d: AmqpDestination, content: Buffer, messageId: string, headers: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      p.channel.publish(
        d.exchange,
        d.routingKey,
        content,
        { persistent: true, mandatory: true, contentType: 'application/json', messageId, headers },
        (err: unknown) =>
          err ? reject(err instanceof Error ? err : new Error('the server refused the message (nack)')) : resolve(),
      );
    });

  return {
    async send(d, m) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const key = settingsKey(m.subscriptionId, d);
      let publisher: Publisher | undefined;
      try {
        publisher = await publishers.get(key, () => open(key, d));
        await within(
          opts.timeoutMs,
          'no confirm from the AMQP server',
          publish(publisher, d, Buffer.from(m.body), m.deliveryId, m.headers),
        );
        // basic.return comes before the confirm: a message no queue took was not delivered.
        if (publisher.returned.delete(m.deliveryId))
          return failure(
            `amqp: unroutable: no queue is bound to exchange "${d.exchange}" for routing key "${d.routingKey}"`,
            elapsed(),
          );
        return {
          ok: true,
          responseCode: null,
          responseBody: `amqp: confirmed by ${new URL(d.url).host}`,
          error: null,
          durationMs: elapsed(),
        };
      } catch (err) {
        if (publisher) publishers.drop(key, publisher);
        return failure(`amqp: ${describeError(err)}`, elapsed());
      }
    },
    close: () => publishers.closeAll(),
  };
}
