import { describe, expect, it } from 'vitest';
import { checkHost } from '../../sender/address-guard.ts';
import { checkDestination } from '../../sender/address-guard.ts';
import { createDeliverySender, entityKeyOf, type Destination, type OutgoingMessage } from '../../sender/destination.ts';
import type { HttpSender } from '../../sender/http-sender.ts';
import { checkDestinationBody, destinationView, type DestinationChecks } from './destination.ts';
import { mergeReceiver } from './receiver.ts';

// The destination rules of docs/webhooks.md, "Destinations": fields per type, the SSRF guard on every broker
// host, TLS outside development, masking; and the send step's routing by type.
const guarded = (production: boolean): DestinationChecks => ({
  checkUrl: (url) => checkDestination(url, { production, allowPrivate: false }),
  checkHost: (host) => checkHost(host, { allowPrivate: false }),
  production,
});
const pointers = async (body: unknown, checks = guarded(false)) => {
  try {
    await checkDestinationBody(body, checks);
    return [];
  } catch (err) {
    return (err as { details: { errors: { path: string; message: string }[] } }).details.errors.map((e) => e.path);
  }
};

describe('checkDestinationBody', () => {
  it('refuses private and loopback broker hosts, AMQP servers and queue URLs, as HTTP destinations are', async () => {
    expect(await pointers({ type: 'kafka', brokers: ['10.0.0.5:9092', '127.0.0.1:9092', '8.8.8.8:9092'], topic: 't' })).toEqual([
      '/destination/brokers/0',
      '/destination/brokers/1',
    ]);
    expect(await pointers({ type: 'kafka', brokers: ['[::1]:9092'], topic: 't' })).toEqual(['/destination/brokers/0']);
    expect(await pointers({ type: 'kafka', brokers: ['localhost:9092'], topic: 't' })).toEqual(['/destination/brokers/0']);
    expect(await pointers({ type: 'amqp', url: 'amqp://169.254.169.254/', exchange: 'e', routingKey: 'k' })).toEqual([
      '/destination/url',
    ]);
    expect(await pointers({ type: 'sqs', queueUrl: 'http://192.168.1.1/000/q', region: 'eu-west-1' })).toEqual([
      '/destination/queueUrl',
    ]);
  });

  it('wants TLS outside development: kafka tls, amqps, https queue URLs', async () => {
    const prod = guarded(true);
    expect(await pointers({ type: 'kafka', brokers: ['8.8.8.8:9093'], topic: 't', tls: false }, prod)).toEqual([
      '/destination/tls',
    ]);
    const kafka = await checkDestinationBody({ type: 'kafka', brokers: ['8.8.8.8:9093'], topic: 't' }, prod);
    expect(kafka.destination).toMatchObject({ type: 'kafka', tls: {} });
    expect(await pointers({ type: 'amqp', url: 'amqp://8.8.8.8/', exchange: 'e', routingKey: 'k' }, prod)).toEqual([
      '/destination/url',
    ]);
    expect(await pointers({ type: 'sqs', queueUrl: 'http://8.8.8.8/000/q', region: 'eu-west-1' }, prod)).toEqual([
      '/destination/queueUrl',
    ]);
  });

  it('points at missing, unused and malformed fields', async () => {
    expect(await pointers({ type: 'kafka' })).toEqual(['/destination/brokers', '/destination/topic']);
    expect(await pointers({ type: 'sqs', queueUrl: 'https://8.8.8.8/1/q', region: 'x', topic: 't' })).toEqual([
      '/destination/topic',
    ]);
    expect(await pointers({ type: 'kafka', brokers: ['8.8.8.8'], topic: 't' })).toEqual(['/destination/brokers/0']);
    expect(await pointers({ type: 'amqp', url: 'amqp://u:p@8.8.8.8/', exchange: 'e', routingKey: 'k' })).toEqual([
      '/destination/url',
    ]);
    expect(await pointers({ type: 'amqp', url: 'amqp://8.8.8.8/', exchange: 'e', routingKey: 'k', username: 'u' })).toEqual([
      '/destination/password',
    ]);
    expect(await pointers({ type: 'sqs', queueUrl: 'https://8.8.8.8/1/q', region: 'x', accessKeyId: 'a' })).toEqual([
      '/destination/secretAccessKey',
    ]);
    expect(await pointers({ type: 'amqp', url: 'amqp:nohost', exchange: 'e', routingKey: 'k' })).toEqual(['/destination/url']);
    expect(await pointers({ type: 'smtp' })).toEqual(['/destination/type']);
  });

  it('names each destination readably and bounds concurrency per broker', async () => {
    const k = await checkDestinationBody(
      { type: 'kafka', brokers: ['8.8.8.8:9093', '8.8.4.4:9093'], topic: 'hooks', tls: true },
      guarded(false),
    );
    expect(k).toMatchObject({
      destinationUrl: 'kafka://8.8.8.8:9093/hooks',
      destinationOrigin: 'kafka://8.8.4.4:9093,8.8.8.8:9093',
    });
    const a = await checkDestinationBody(
      { type: 'amqp', url: 'amqps://8.8.8.8/prod', exchange: 'ex', routingKey: 'a.b' },
      guarded(true),
    );
    expect(a).toMatchObject({
      destinationUrl: 'amqps://8.8.8.8/prod?exchange=ex&routingKey=a.b',
      destinationOrigin: 'amqps://8.8.8.8:5671',
    });
    const s = await checkDestinationBody(
      { type: 'sqs', queueUrl: 'https://8.8.8.8/1/q.fifo', region: 'eu-west-1' },
      guarded(true),
    );
    expect(s).toMatchObject({ destinationUrl: 'sqs+https://8.8.8.8/1/q.fifo', destinationOrigin: 'sqs+https://8.8.8.8:443' });
    const h = await checkDestinationBody({ type: 'http', url: 'https://8.8.8.8/h' }, guarded(true));
    expect(h).toEqual({ destinationUrl: 'https://8.8.8.8/h', destinationOrigin: 'https://8.8.8.8:443', destination: null });
  });
});

describe('destinationView', () => {
  it('masks every secret and says only whether a CA is set', () => {
    expect(
      destinationView('kafka://x', {
        type: 'kafka',
        brokers: ['b:1'],
        topic: 't',
        tls: { ca: '-----BEGIN CERTIFICATE-----' },
        sasl: { mechanism: 'plain', username: 'u', password: 'p' },
      }),
    ).toEqual({
      type: 'kafka',
      brokers: ['b:1'],
      topic: 't',
      tls: true,
      ca: true,
      sasl: { mechanism: 'plain', username: 'u', password: '****' },
    });
    expect(destinationView('https://h/', null)).toEqual({ type: 'http', url: 'https://h/' });
  });
});

describe('mergeReceiver', () => {
  it('refuses custom headers or auth beside a broker destination', () => {
    const kafka = { type: 'kafka' as const, brokers: ['b:1'], topic: 't' };
    expect(() => mergeReceiver({ headers: { 'X-A': 'v' }, auth: null }, { destination: kafka })).toThrow();
    expect(mergeReceiver({ headers: {}, auth: null }, { destination: kafka }).destination).toEqual(kafka);
    // Back to HTTP: the destination goes.
    expect(mergeReceiver({ headers: {}, auth: null, destination: kafka }, { destination: null }).destination).toBeUndefined();
  });
});

describe('createDeliverySender', () => {
  it('sends HTTP deliveries over HTTP, others to their type, with the signature headers less user-agent and the entity as key', async () => {
    const calls: string[] = [];
    const http: HttpSender = {
      send: async (url) => {
        calls.push(`http ${url}`);
        return { ok: true, responseCode: 200, responseBody: '', error: null, durationMs: 1 };
      },
      close: async () => {},
    };
    let message: OutgoingMessage | undefined;
    const kafka: Destination = {
      send: async (_settings, m) => {
        message = m;
        return { ok: true, responseCode: null, responseBody: 'kafka', error: null, durationMs: 1 };
      },
      close: async () => {},
    };
    const sender = createDeliverySender(http, { kafka });
    const body = JSON.stringify({ id: 'd1', entityId: 'e1' });
    const headers = { 'webhook-id': 'd1', 'user-agent': 'x', 'webhook-signature': 'v1,abc' };
    await sender.send('https://h/', headers, body, { subscriptionId: 's', auth: null });
    await sender.send('kafka://b/t', headers, body, {
      subscriptionId: 's',
      auth: null,
      destination: { type: 'kafka', brokers: ['b:1'], topic: 't' },
    });
    const amqp = await sender.send('amqp://x', headers, body, {
      subscriptionId: 's',
      auth: null,
      destination: { type: 'amqp', url: 'amqp://x', exchange: '', routingKey: 'k' },
    });
    expect(calls).toEqual(['http https://h/']);
    expect(message).toEqual({
      deliveryId: 'd1',
      subscriptionId: 's',
      body,
      headers: { 'webhook-id': 'd1', 'webhook-signature': 'v1,abc' },
      key: 'e1',
    });
    expect(amqp).toMatchObject({ ok: false, error: 'no amqp destinations here' });
    expect(entityKeyOf('not json')).toBeNull();
  });
});
