import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Json } from './json.ts';

/** One request a test receiver got, exactly as it arrived. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: Json;
  arrivedAt: number;
  method: string;
  path: string;
}

/** What a receiver answers; a function of the request and how many came before. */
export type Responder = (
  req: Received,
  index: number,
) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

/** A real HTTP receiver on 127.0.0.1:0 that records every request. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Most requests that were open at the same time. */
  maxInFlight(): number;
  respond(fn: Responder): void;
  /** Waits until `count` requests matched `predicate` (default: any). */
  waitFor(count: number, predicate?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  let responder: Responder = () => ({ status: 200, body: 'ok' });
  let open = 0;
  let maxOpen = 0;
  const server = http.createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const r: Received = {
        headers: req.headers,
        rawBody,
        body,
        arrivedAt: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
      };
      const index = received.length;
      received.push(r);
      const answer = responder(r, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    maxInFlight: () => maxOpen,
    respond(fn) {
      responder = fn;
    },
    async waitFor(count, predicate = () => true, timeoutMs = 20000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matches = received.filter(predicate);
        if (matches.length >= count) return matches;
        if (Date.now() > deadline)
          throw new Error(`receiver: timed out waiting for ${count} request(s); have ${matches.length} (of ${received.length})`);
        await sleep(20);
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The receivers one test file starts, closed together in its afterAll. */
export function createReceivers() {
  const all: Receiver[] = [];
  return {
    async start(path?: string): Promise<Receiver> {
      const r = await startReceiver(path);
      all.push(r);
      return r;
    },
    async closeAll(): Promise<void> {
      await Promise.all(all.map((r) => r.close()));
    },
  };
}

/** Verifies X-Service-Signature as an integrator would: hex HMAC-SHA256 of the raw body keyed with the secret. */
export function verifyServiceSignature(secret: string, r: Received): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(r.rawBody).digest('hex')}`;
  const got = String(r.headers['x-service-signature'] ?? '');
  return got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected));
}

/** Verifies webhook-signature per the Standard Webhooks spec (key: base64 part of the whsec_ secret). */
export function verifyStandardSignature(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const content = `${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.rawBody}`;
  const expected = createHmac('sha256', key).update(content).digest('base64');
  return String(r.headers['webhook-signature'] ?? '')
    .split(' ')
    .some((sig) => sig === `v1,${expected}`);
}
