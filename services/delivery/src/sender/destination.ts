import { createHash } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { createGuardedLookup, forbiddenAddressReason, ForbiddenDestinationError } from './address-guard.ts';
import type { HttpSender, ReceiverTarget, SendResult } from './http-sender.ts';

/**
 * Where a subscription's deliveries go when not to an HTTP endpoint (docs/webhooks.md, "Destinations"):
 * the customer's Kafka topic, RabbitMQ exchange or SQS queue. Sealed with the receiver settings
 * (sender/receiver.ts): credentials included. An HTTP destination is the subscription's `destinationUrl`.
 */
export type BrokerDestination = KafkaDestination | AmqpDestination | SqsDestination;

export interface KafkaDestination {
  type: 'kafka';
  /** host:port of the bootstrap brokers. */
  brokers: string[];
  topic: string;
  /** TLS to the brokers (required outside development); `ca` a PEM bundle beside Node's trusted CAs. */
  tls?: { ca?: string } | null;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | null;
}

export interface AmqpDestination {
  type: 'amqp';
  /** amqp(s)://host:port/vhost, without credentials (those are `username`, `password`). */
  url: string;
  exchange: string;
  routingKey: string;
  username?: string;
  password?: string;
  /** A PEM bundle beside Node's trusted CAs (amqps). */
  ca?: string;
}

export interface SqsDestination {
  type: 'sqs';
  /** The queue's URL (https outside development); a `.fifo` queue gets a MessageGroupId. */
  queueUrl: string;
  region: string;
  /** Static credentials; absent: the AWS SDK's default provider chain (environment, web identity, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** One delivery as a broker destination receives it: the stored body, the signature headers, the entity it is about. */
export interface OutgoingMessage {
  deliveryId: string;
  subscriptionId: string;
  body: string;
  /** The delivery's headers as HTTP sends them, less what only HTTP means (user-agent): Kafka headers, AMQP headers, SQS attributes. */
  headers: Record<string, string>;
  /** The event's entity id: the Kafka key and the SQS FIFO MessageGroupId (ordering), or null. */
  key: string | null;
}

/** One kind of broker destination: sends a message, reports how it went as data, never throws. */
export interface Destination<S extends BrokerDestination = BrokerDestination> {
  send(settings: S, message: OutgoingMessage): Promise<SendResult>;
  /** Closes every connection it keeps. */
  close(): Promise<void>;
}

/** How broker destinations connect (the HTTP sender's rules: config.ts). */
export interface DestinationOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Producers and connections unused this long are closed. */
  idleMs?: number;
}

/** The send step of every attempt: HTTP, or the broker destination the subscription's settings name. */
export interface DeliverySender {
  send(url: string, headers: Record<string, string>, body: string, target?: DeliveryTarget): Promise<SendResult>;
  /** Whether the platform presents a client certificate of its own. */
  readonly platformCertificate?: boolean;
  close(): Promise<void>;
}

/** Whom a delivery goes to: the receiver settings, and the broker destination if not HTTP. */
export interface DeliveryTarget extends ReceiverTarget {
  destination?: BrokerDestination | null;
}

/** Headers HTTP sends that a message does not carry. */
const HTTP_ONLY = new Set(['user-agent']);

/** The entity id of a stored webhook body (the Kafka key, the FIFO group), or null. */
export function entityKeyOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { entityId?: unknown };
    return typeof parsed.entityId === 'string' && parsed.entityId ? parsed.entityId : null;
  } catch {
    return null;
  }
}

/**
 * The send step with one implementation per destination type: HTTP (the HttpSender), Kafka, AMQP, SQS.
 * The delivery loop, redelivery and the test call go through it alike, so every type gets the same retries,
 * dead letters, ordering and statistics: those live in what records the outcome, not here.
 */
export function createDeliverySender(
  http: HttpSender,
  // Destination's `send` is a method, so a Destination<KafkaDestination> is a Destination here.
  brokers: Partial<Record<BrokerDestination['type'], Destination>>,
): DeliverySender {
  return {
    platformCertificate: http.platformCertificate,
    async send(url, headers, body, target) {
      const destination = target?.destination;
      if (!destination) return http.send(url, headers, body, target);
      const impl = brokers[destination.type];
      if (!impl) return failure(`no ${destination.type} destinations here`);
      const message: OutgoingMessage = {
        deliveryId: headers['webhook-id'] ?? '',
        subscriptionId: target.subscriptionId,
        body,
        headers: Object.fromEntries(Object.entries(headers).filter(([n]) => !HTTP_ONLY.has(n.toLowerCase()))),
        key: entityKeyOf(body),
      };
      return impl.send(destination, message);
    },
    async close() {
      await Promise.allSettled([http.close(), ...Object.values(brokers).map((b) => b?.close())]);
    },
  };
}

/** A failed attempt's result. */
export function failure(error: string, durationMs = 0): SendResult {
  return { ok: false, responseCode: null, responseBody: null, error, durationMs };
}

/** Why an IP literal may not be connected to, or undefined (names are checked by the guarded lookup at connect). */
export function refusedLiteral(host: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate || !net.isIP(host)) return undefined;
  const reason = forbiddenAddressReason(host);
  return reason ? `destination address ${host} is ${reason}; refused` : undefined;
}

/**
 * A socket to a broker that passes the SSRF guard (docs/decisions-webhooks.md, "Destinations (SSRF)"): a
 * name is resolved, checked and pinned by the guarded lookup; an IP literal is checked here. Every broker a
 * Kafka cluster's metadata names goes through it too, not only the bootstrap ones.
 */
export function guardedSocket(
  args: { host: string; port: number; tls?: tls.ConnectionOptions | null; onConnect?: () => void },
  allowPrivate: boolean,
): net.Socket {
  const refused = refusedLiteral(args.host, allowPrivate);
  if (refused) {
    const socket = new net.Socket();
    process.nextTick(() => socket.destroy(new ForbiddenDestinationError(args.host, args.host, refused)));
    return socket;
  }
  const lookup = createGuardedLookup(allowPrivate);
  if (args.tls)
    return tls.connect(
      { host: args.host, port: args.port, lookup, ...(net.isIP(args.host) ? {} : { servername: args.host }), ...args.tls },
      args.onConnect,
    );
  return net.connect({ host: args.host, port: args.port, lookup }, args.onConnect);
}

/** The key a destination's connection is kept under: its subscription and every setting (a change is a new connection). */
export function settingsKey(subscriptionId: string, settings: object): string {
  return `${subscriptionId}:${createHash('sha256').update(JSON.stringify(settings)).digest('base64url')}`;
}

/** An error as one line: code and message. */
export function describeError(err: unknown): string {
  const e = err as { code?: string | number; message?: string; name?: string };
  const message = e?.message ?? String(err);
  return e?.code !== undefined && !message.includes(String(e.code)) ? `${e.code}: ${message}` : message;
}

/** `promise`, or a rejection after `ms` (a broker that does not answer is a failed attempt, not a hang). */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timeout: ${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connections (producers, channels, clients) kept per destination settings: one per key, opened on first use,
 * closed when unused for `idleMs` or when `drop` is called (a failure that may have broken it). Changed settings
 * are another key; the old one idles out.
 */
export function createConnectionCache<C>(opts: { idleMs: number; close: (c: C) => Promise<void> }) {
  const entries = new Map<string, { conn: Promise<C>; lastUsed: number }>();
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [key, e] of entries)
        if (now - e.lastUsed > opts.idleMs) {
          entries.delete(key);
          void e.conn.then(opts.close).catch(() => {});
        }
    },
    Math.max(1000, Math.floor(opts.idleMs / 4)),
  );
  sweep.unref();
  return {
    get(key: string, open: () => Promise<C>): Promise<C> {
      let e = entries.get(key);
      if (!e) {
        const conn = open();
        e = { conn, lastUsed: Date.now() };
        entries.set(key, e);
        // A connection that could not be opened is not kept: the next attempt opens another.
        conn.catch(() => {
          if (entries.get(key)?.conn === conn) entries.delete(key);
        });
      }
      e.lastUsed = Date.now();
      return e.conn;
    },
    drop(key: string, conn?: C): void {
      const e = entries.get(key);
      if (!e) return;
      void e.conn.then(
        (c) => {
          if (conn !== undefined && c !== conn) return;
          if (entries.get(key) === e) entries.delete(key);
          return opts.close(c).catch(() => {});
        },
        () => {},
      );
    },
    async closeAll(): Promise<void> {
      clearInterval(sweep);
      const all = [...entries.values()];
      entries.clear();
      await Promise.allSettled(all.map((e) => e.conn.then(opts.close)));
    },
    size: () => entries.size,
  };
}
