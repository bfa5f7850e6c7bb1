import type { JsonObject } from '@bufbuild/protobuf';
import { KAFKA_SASL_MECHANISMS, WEBHOOK_DESTINATION_TYPES, type WebhookDestinationType } from '@cluster/contracts';
import { validation } from '@cluster/platform';
import type { BrokerDestination, KafkaDestination } from '../../sender/destination.ts';

type Problem = { path: string; message: string };

/** What checking a destination needs of the service: the SSRF guard for URLs and hosts, and the environment. */
export interface DestinationChecks {
  /** Why an HTTP(S) URL may not receive deliveries (sender/address-guard.ts `checkDestination`), or undefined. */
  checkUrl(url: string): Promise<string | undefined>;
  /** Why a host may not be connected to (sender/address-guard.ts `checkHost`), or undefined. */
  checkHost(host: string): Promise<string | undefined>;
  /** Outside CLUSTER_ENV=development: TLS to every broker, https queue URLs. */
  production: boolean;
}

/** A checked destination: the URL column (HTTP's endpoint, or a readable name), its concurrency unit, the broker settings. */
export interface CheckedDestination {
  destinationUrl: string;
  destinationOrigin: string;
  /** null for HTTP. */
  destination: BrokerDestination | null;
}

/** The fields each destination type takes; `required` ones must be present. */
const FIELDS: Record<WebhookDestinationType, { required: string[]; optional: string[] }> = {
  http: { required: ['url'], optional: [] },
  kafka: { required: ['brokers', 'topic'], optional: ['tls', 'ca', 'sasl'] },
  amqp: { required: ['url', 'exchange', 'routingKey'], optional: ['username', 'password', 'ca'] },
  sqs: { required: ['queueUrl', 'region'], optional: ['accessKeyId', 'secretAccessKey'] },
};

/** scheme://host:port of an http(s) URL: the unit of the per-destination concurrency bound. */
export function originOf(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.protocol}//${u.hostname}:${port}`;
}

/** host and port of a `host:port` broker address (IPv6 in brackets), or a problem. */
function hostPort(value: string): { host: string; port: number } | string {
  let u: URL;
  try {
    u = new URL(`tcp://${value}`);
  } catch {
    return 'must be host:port';
  }
  if (!u.port || u.pathname || u.search || u.hash || u.username || u.password || u.host.toLowerCase() !== value.toLowerCase())
    return 'must be host:port';
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) };
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----/;

/**
 * Checks a `destination` object (docs/webhooks.md, "Destinations") against its type's fields, the SSRF guard
 * (every broker host, the AMQP server, the queue URL: the rules of an HTTP destination) and, outside development,
 * TLS. Problems point into `/destination`; throws 400 validation_error listing every one.
 */
export async function checkDestinationBody(value: unknown, checks: DestinationChecks): Promise<CheckedDestination> {
  const problems: Problem[] = [];
  const refuse = (): never => {
    throw validation(problems);
  };
  const a = (value ?? {}) as Record<string, unknown>;
  const type = String(a.type) as WebhookDestinationType;
  if (!(WEBHOOK_DESTINATION_TYPES as readonly string[]).includes(type)) {
    problems.push({ path: '/destination/type', message: `must be one of: ${WEBHOOK_DESTINATION_TYPES.join(', ')}` });
    return refuse();
  }
  const { required, optional } = FIELDS[type];
  for (const f of required)
    if (a[f] === undefined) problems.push({ path: `/destination/${f}`, message: `is required for type ${type}` });
  for (const f of Object.keys(a))
    if (f !== 'type' && !required.includes(f) && !optional.includes(f))
      problems.push({ path: `/destination/${f}`, message: `is not used by type ${type}` });
  if (problems.length) refuse();
  const s = (f: string) => a[f] as string;
  if (a.ca !== undefined && !PEM_CERT.test(s('ca'))) {
    problems.push({ path: '/destination/ca', message: 'is not a PEM certificate bundle' });
    refuse();
  }

  switch (type) {
    case 'http': {
      const problem = await checks.checkUrl(s('url'));
      if (problem) problems.push({ path: '/destination/url', message: problem });
      if (problems.length) refuse();
      return { destinationUrl: s('url'), destinationOrigin: originOf(s('url')), destination: null };
    }
    case 'kafka': {
      const brokers = (a.brokers as unknown[]).map(String);
      for (const [i, b] of brokers.entries()) {
        const hp = hostPort(b);
        if (typeof hp === 'string') {
          problems.push({ path: `/destination/brokers/${i}`, message: hp });
          continue;
        }
        const problem = await checks.checkHost(hp.host);
        if (problem) problems.push({ path: `/destination/brokers/${i}`, message: problem });
      }
      const tlsOn = a.tls === undefined ? checks.production : Boolean(a.tls);
      if (checks.production && !tlsOn) problems.push({ path: '/destination/tls', message: 'must be true outside development' });
      if (a.ca !== undefined && !tlsOn) problems.push({ path: '/destination/ca', message: 'needs tls' });
      const sasl = a.sasl as KafkaDestination['sasl'];
      if (sasl && !(KAFKA_SASL_MECHANISMS as readonly string[]).includes(sasl.mechanism))
        problems.push({ path: '/destination/sasl/mechanism', message: `must be one of: ${KAFKA_SASL_MECHANISMS.join(', ')}` });
      if (problems.length) refuse();
      const destination: KafkaDestination = {
        type,
        brokers,
        topic: s('topic'),
        tls: tlsOn ? (a.ca !== undefined ? { ca: s('ca') } : {}) : null,
        sasl: sasl ? { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } : null,
      };
      return {
        destinationUrl: `kafka://${brokers[0]}/${encodeURIComponent(destination.topic)}`,
        destinationOrigin: `kafka://${[...brokers].sort().join(',')}`,
        destination,
      };
    }
    case 'amqp': {
      let u: URL | undefined;
      try {
        u = new URL(s('url'));
      } catch {
        problems.push({ path: '/destination/url', message: 'must be an absolute URL' });
      }
      if (u) {
        if (u.protocol !== 'amqp:' && u.protocol !== 'amqps:')
          problems.push({ path: '/destination/url', message: 'must use amqp or amqps' });
        else if (checks.production && u.protocol !== 'amqps:')
          problems.push({ path: '/destination/url', message: 'must use amqps outside development' });
        else if (u.username || u.password)
          problems.push({ path: '/destination/url', message: 'must not carry credentials (give username and password)' });
        else if (u.search || u.hash) problems.push({ path: '/destination/url', message: 'must not have a query or fragment' });
        else if (!u.hostname) problems.push({ path: '/destination/url', message: 'must name a host' });
        else {
          const problem = await checks.checkHost(u.hostname.replace(/^\[|\]$/g, ''));
          if (problem) problems.push({ path: '/destination/url', message: problem });
        }
      }
      if ((a.username === undefined) !== (a.password === undefined))
        problems.push({
          path: a.username === undefined ? '/destination/username' : '/destination/password',
          message: 'username and password go together',
        });
      if (a.ca !== undefined && u?.protocol !== 'amqps:') problems.push({ path: '/destination/ca', message: 'needs amqps' });
      if (problems.length || !u) return refuse();
      const port = u.port || (u.protocol === 'amqps:' ? '5671' : '5672');
      const destination: BrokerDestination = { type, url: s('url'), exchange: s('exchange'), routingKey: s('routingKey') };
      if (a.username !== undefined) Object.assign(destination, { username: s('username'), password: s('password') });
      if (a.ca !== undefined) destination.ca = s('ca');
      const readable = new URL(`${u.protocol}//${u.host}${u.pathname}`);
      readable.searchParams.set('exchange', destination.exchange);
      readable.searchParams.set('routingKey', destination.routingKey);
      return {
        destinationUrl: readable.toString(),
        destinationOrigin: `${u.protocol}//${u.hostname}:${port}`,
        destination,
      };
    }
    case 'sqs': {
      const problem = await checks.checkUrl(s('queueUrl'));
      if (problem) problems.push({ path: '/destination/queueUrl', message: problem });
      if ((a.accessKeyId === undefined) !== (a.secretAccessKey === undefined))
        problems.push({
          path: a.accessKeyId === undefined ? '/destination/accessKeyId' : '/destination/secretAccessKey',
          message: 'accessKeyId and secretAccessKey go together',
        });
      if (problems.length) refuse();
      const destination: BrokerDestination = { type, queueUrl: s('queueUrl'), region: s('region') };
      if (a.accessKeyId !== undefined)
        Object.assign(destination, { accessKeyId: s('accessKeyId'), secretAccessKey: s('secretAccessKey') });
      return {
        destinationUrl: `sqs+${s('queueUrl')}`,
        destinationOrigin: `sqs+${originOf(s('queueUrl'))}`,
        destination,
      };
    }
  }
}

/** A secret as answers show it: `****`, and its last 4 characters when it has 16 or more. */
export function mask(value: string): string {
  return value.length >= 16 ? `****${value.slice(-4)}` : '****';
}

/** What answers show of a destination (stored clear in `receiverView.destination`): settings, secrets masked. */
export function destinationView(destinationUrl: string, destination: BrokerDestination | null | undefined): JsonObject {
  if (!destination) return { type: 'http', url: destinationUrl };
  switch (destination.type) {
    case 'kafka':
      return {
        type: 'kafka',
        brokers: destination.brokers,
        topic: destination.topic,
        tls: Boolean(destination.tls),
        ...(destination.tls?.ca ? { ca: true } : {}),
        ...(destination.sasl
          ? {
              sasl: {
                mechanism: destination.sasl.mechanism,
                username: destination.sasl.username,
                password: mask(destination.sasl.password),
              },
            }
          : {}),
      };
    case 'amqp':
      return {
        type: 'amqp',
        url: destination.url,
        exchange: destination.exchange,
        routingKey: destination.routingKey,
        ...(destination.username !== undefined
          ? { username: destination.username, password: mask(destination.password ?? '') }
          : {}),
        ...(destination.ca ? { ca: true } : {}),
      };
    case 'sqs':
      return {
        type: 'sqs',
        queueUrl: destination.queueUrl,
        region: destination.region,
        ...(destination.accessKeyId !== undefined
          ? { accessKeyId: destination.accessKeyId, secretAccessKey: mask(destination.secretAccessKey ?? '') }
          : {}),
      };
  }
}
