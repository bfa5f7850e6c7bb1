import net from 'node:net';
import { Agent, request } from 'undici';
import { parseRetryAfter } from './retry-after.ts';
import { createGuardedLookup, forbiddenAddressReason, urlHost } from './address-guard.ts';

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
}

/**
 * Sends one signed POST to a receiver and reports how it went (the delivery loop,
 * dispatch/dispatcher.ts, decides what comes next), over one pooled undici agent
 * whose every connection passes the SSRF guard.
 */
export interface HttpSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
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
  const agent = new Agent({
    connect: { lookup: createGuardedLookup(opts.allowPrivate), timeout: opts.timeoutMs },
    connections: opts.connectionsPerOrigin,
    keepAliveTimeout: 10_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });

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

  return {
    async send(rawUrl, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        return { ok: false, responseCode: null, responseBody: null, error: 'invalid destination URL', durationMs: 0 };
      }
      const refused = precheck(url);
      if (refused) return { ok: false, responseCode: null, responseBody: null, error: refused, durationMs: 0 };

      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
      try {
        const res = await request(url, { method: 'POST', headers, body, dispatcher: agent, signal: controller.signal });
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
    },
    async close() {
      await agent.close();
    },
  };
}
