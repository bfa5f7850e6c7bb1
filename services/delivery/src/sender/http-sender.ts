import { createHash } from 'node:crypto';
import net from 'node:net';
import { Agent, request } from 'undici';
import { parseRetryAfter } from './retry-after.ts';
import { createGuardedLookup, forbiddenAddressReason, urlHost } from './address-guard.ts';
import { createTokenSource, TokenError } from './oauth2-tokens.ts';
import type { ReceiverAuth } from './receiver.ts';

/** Stored length of a receiver's response body (docs/decisions-api.md: first 4 KiB). */
export const STORED_RESPONSE_BYTES = 4096;

/** The outcome of one POST to a receiver: data, never an exception. */
export interface SendResult {
  ok: boolean;
  responseCode: number | null;
  /** The first 4 KiB of the response body, or null when none arrived. */
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  /** A 429/503 answer's Retry-After, in milliseconds. */
  retryAfterMs?: number;
}

/** How the HTTP sender connects (config.ts values). */
export interface HttpSenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  production: boolean;
  maxResponseBytes: number;
  /** Connections kept per origin (matches the per-destination concurrency bound). */
  connectionsPerOrigin: number;
  /**
   * The platform's own TLS client certificate and key (PEM; WEBHOOK_CLIENT_CERT_FILE, WEBHOOK_CLIENT_KEY_FILE),
   * presented to every receiver that asks for one, unless the subscription has its own (docs/webhooks.md, "Mutual TLS").
   */
  clientCertificate?: { cert: string; key: string };
}

/** Whom a delivery goes to: its subscription and how it authenticates there (sender/receiver.ts). */
export interface ReceiverTarget {
  subscriptionId: string;
  auth: ReceiverAuth | null;
}

/** Subscriptions' own client-certificate agents kept per replica; beyond that the least recently used closes. */
const MAX_MTLS_AGENTS = 256;

/**
 * Sends one signed POST to a receiver and reports how it went (the delivery loop,
 * dispatch/dispatcher.ts, decides what comes next), over one pooled undici agent
 * whose every connection passes the SSRF guard.
 */
export interface HttpSender {
  /**
   * POSTs `body` with `headers`, authenticated as `receiver.auth` says: a bearer or basic
   * `Authorization`, an OAuth2 token (cached; a 401 fetches a new one and sends once more), or the
   * subscription's own client certificate.
   */
  send(url: string, headers: Record<string, string>, body: string, receiver?: ReceiverTarget): Promise<SendResult>;
  /** Whether the platform presents a client certificate of its own. */
  readonly platformCertificate?: boolean;
  close(): Promise<void>;
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; name?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return code ? `${code}: ${message}` : message;
}

/** The HTTP sender of a replica: one undici agent, closed at shutdown. */
export function createHttpSender(opts: HttpSenderOptions): HttpSender {
  const agentWith = (clientCertificate?: { cert: string; key: string }) =>
    new Agent({
      connect: { lookup: createGuardedLookup(opts.allowPrivate), timeout: opts.timeoutMs, ...clientCertificate },
      connections: opts.connectionsPerOrigin,
      keepAliveTimeout: 10_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  const agent = agentWith(opts.clientCertificate);
  /** Agents presenting a subscription's own certificate, by subscription and certificate (a new one is another agent). */
  const mtlsAgents = new Map<string, Agent>();
  const agentFor = (target: ReceiverTarget | undefined): Agent => {
    const auth = target?.auth;
    if (auth?.type !== 'mtls' || !auth.certificate || !auth.privateKey) return agent;
    const key = `${target!.subscriptionId}:${createHash('sha256').update(auth.certificate).update(auth.privateKey).digest('base64url')}`;
    let found = mtlsAgents.get(key);
    if (found) mtlsAgents.delete(key);
    else {
      found = agentWith({ cert: auth.certificate, key: auth.privateKey });
      if (mtlsAgents.size >= MAX_MTLS_AGENTS) {
        const [oldestKey, oldest] = mtlsAgents.entries().next().value!;
        mtlsAgents.delete(oldestKey);
        void oldest.close().catch(() => {});
      }
    }
    mtlsAgents.set(key, found);
    return found;
  };

  /** Refusals decided before any connection (the connect-time lookup handles names). */
  const precheck = (url: URL): string | undefined => {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'unsupported URL scheme';
    if (opts.production && url.protocol !== 'https:') return 'https is required in production';
    const host = urlHost(url);
    if (!opts.allowPrivate && net.isIP(host)) {
      const reason = forbiddenAddressReason(host);
      if (reason) return `destination address ${host} is ${reason}; refused`;
    }
    return undefined;
  };

  /** One POST over `dispatcher`; its outcome as data. */
  async function post(url: URL, headers: Record<string, string>, body: string, dispatcher: Agent): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
    try {
      const res = await request(url, { method: 'POST', headers, body, dispatcher, signal: controller.signal });
      const status = res.statusCode;
      // Read a bounded prefix of the answer, then drop the rest.
      const chunks: Buffer[] = [];
      let read = 0;
      try {
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          chunks.push(buf);
          read += buf.length;
          if (read >= opts.maxResponseBytes) break;
        }
      } catch {
        // The status decides the outcome; a body cut short by the deadline is kept as read.
      } finally {
        res.body.destroy();
      }
      // Stored as text: Postgres holds no NUL, and a receiver's body with one made the attempt
      // unrecordable (its lease lapsed and it was sent again, forever).
      const responseBody = Buffer.concat(chunks).subarray(0, STORED_RESPONSE_BYTES).toString('utf8').replaceAll('\u0000', '');
      const ok = status >= 200 && status < 300;
      let error: string | null = null;
      if (!ok) error = status >= 300 && status < 400 ? `redirect (HTTP ${status}) not followed` : `HTTP ${status}`;
      const result: SendResult = { ok, responseCode: status, responseBody, error, durationMs: elapsed() };
      if (status === 429 || status === 503) {
        const header = res.headers['retry-after'];
        const value = Array.isArray(header) ? header[0] : header;
        const ms = value ? parseRetryAfter(value) : undefined;
        if (ms !== undefined) result.retryAfterMs = ms;
      }
      return result;
    } catch (err) {
      const error = controller.signal.aborted ? `timeout: no answer within ${opts.timeoutMs} ms` : describe(err);
      return { ok: false, responseCode: null, responseBody: null, error, durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  const tokens = createTokenSource({ dispatcher: agent, timeoutMs: opts.timeoutMs, allowHttp: !opts.production, precheck });
  const failed = (error: string, durationMs = 0): SendResult => ({
    ok: false,
    responseCode: null,
    responseBody: null,
    error,
    durationMs,
  });

  return {
    platformCertificate: Boolean(opts.clientCertificate),
    async send(rawUrl, headers, body, target) {
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        return failed('invalid destination URL');
      }
      const refused = precheck(url);
      if (refused) return failed(refused);
      const auth = target?.auth;
      const dispatcher = agentFor(target);
      if (auth?.type === 'bearer') return post(url, { ...headers, authorization: `Bearer ${auth.token}` }, body, dispatcher);
      if (auth?.type === 'basic') {
        const credentials = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
        return post(url, { ...headers, authorization: `Basic ${credentials}` }, body, dispatcher);
      }
      if (auth?.type !== 'oauth2') return post(url, headers, body, dispatcher);
      // OAuth2: the cached token; on a 401 a new one, and one more POST (docs/webhooks.md, "OAuth2 client credentials").
      const started = performance.now();
      const withToken = async (): Promise<SendResult | string> => {
        try {
          return await tokens.token(target!.subscriptionId, auth);
        } catch (err) {
          return failed(err instanceof TokenError ? err.message : String(err), Math.round(performance.now() - started));
        }
      };
      const first = await withToken();
      if (typeof first !== 'string') return first;
      const sent = await post(url, { ...headers, authorization: `Bearer ${first}` }, body, dispatcher);
      if (sent.responseCode !== 401) return sent;
      tokens.invalidate(target!.subscriptionId, auth, first);
      const fresh = await withToken();
      if (typeof fresh !== 'string') return fresh;
      return post(url, { ...headers, authorization: `Bearer ${fresh}` }, body, dispatcher);
    },
    async close() {
      await Promise.all([agent.close(), ...[...mtlsAgents.values()].map((a) => a.close())]);
    },
  };
}
