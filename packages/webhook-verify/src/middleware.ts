import { isWebhookVerificationError } from './errors.ts';
import type { ReplayGuard } from './replay-guard.ts';
import { verify, type HeaderSource, type VerifiedWebhook, type VerifyOptions } from './verify.ts';

// Ready middleware for Koa and Express. Neither framework is a dependency: the types below
// are the few members the middleware uses, which Koa's Context and Express's Request and
// Response (and Node's own IncomingMessage and ServerResponse) all have.

/** Options of both middlewares. */
export interface WebhookMiddlewareOptions extends VerifyOptions {
  /** Your `hmacSecret` (`whsec_…`); several while you rotate. An ed25519 subscription has none: give `publicKey`. */
  secret?: string | readonly string[];
  /** An ed25519 subscription's `publicKey` (`whpk_…`, verifies `v1a` signatures); several while you rotate. */
  publicKey?: string | readonly string[];
  /** Answers a delivery id it remembers with 200 without calling your handler; remembers ids your handler answered 2xx. */
  replayGuard?: ReplayGuard;
  /** Largest body read, in bytes (default 5 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
}

/** The request stream: Node's IncomingMessage (Koa's `ctx.req`, Express's `req`). */
export interface RequestStream extends AsyncIterable<Uint8Array | string> {
  headers: HeaderSource;
  readableEnded?: boolean;
}

/** What the Koa middleware uses of Koa's Context. */
export interface KoaLikeContext {
  req: RequestStream;
  request: { rawBody?: unknown; body?: unknown };
  status: number;
  body: unknown;
  state: Record<string, unknown>;
}

/** What the Express middleware uses of Express's Request. */
export interface ExpressLikeRequest extends RequestStream {
  body?: unknown;
  rawBody?: unknown;
  /** Set by the middleware: the verified delivery. */
  webhook?: VerifiedWebhook;
}

/** What the Express middleware uses of Express's Response (Node's ServerResponse has it all). */
export interface ExpressLikeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
  on(event: 'finish', listener: () => void): unknown;
}

const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

/** A body too large to read (answered 413). */
class BodyTooLarge extends Error {}

/**
 * The raw body: kept by a body parser that ran before (`rawBody`, or the Buffer of
 * `express.raw()`), else read from the stream. A parser that consumed the stream without
 * keeping the raw bytes makes verification impossible: that is a setup error, thrown.
 */
async function rawBodyOf(req: RequestStream, kept: unknown[], maxBytes: number): Promise<Buffer> {
  for (const k of kept) {
    if (Buffer.isBuffer(k)) return k;
    if (k instanceof Uint8Array) return Buffer.from(k);
    if (typeof k === 'string') return Buffer.from(k, 'utf8');
  }
  if (req.readableEnded)
    throw new Error(
      '@cluster/webhook-verify: the request body was already read and its raw bytes not kept; mount the verifier before your JSON body parser (or use express.raw())',
    );
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    size += b.length;
    if (size > maxBytes) throw new BodyTooLarge(`the body is larger than ${maxBytes} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

type Outcome =
  | { kind: 'verified'; webhook: VerifiedWebhook }
  | { kind: 'duplicate'; webhook: VerifiedWebhook }
  | { kind: 'refused'; status: number; body: { error: string; message: string } };

/** Reads, verifies and checks the replay guard: what both middlewares do before the handler. */
async function check(req: RequestStream, kept: unknown[], opts: WebhookMiddlewareOptions): Promise<Outcome> {
  let raw: Buffer;
  try {
    raw = await rawBodyOf(req, kept, opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge)
      return { kind: 'refused', status: 413, body: { error: 'payload_too_large', message: err.message } };
    throw err;
  }
  let webhook: VerifiedWebhook;
  try {
    webhook = verify(raw, req.headers, keysOf(opts), opts);
  } catch (err) {
    if (!isWebhookVerificationError(err)) throw err;
    return { kind: 'refused', status: err.status, body: { error: err.code, message: err.message } };
  }
  if (opts.replayGuard && (await opts.replayGuard.has(webhook.id))) return { kind: 'duplicate', webhook };
  return { kind: 'verified', webhook };
}

/** The secrets and public keys of the options, together (verify tells them apart by prefix). */
function keysOf(opts: WebhookMiddlewareOptions): string[] {
  const list = (v: string | readonly string[] | undefined) => (v === undefined ? [] : typeof v === 'string' ? [v] : [...v]);
  return [...list(opts.secret), ...list(opts.publicKey)];
}

/** A middleware without anything to verify with would refuse every delivery: a setup error, thrown at once. */
function assertKeys(opts: WebhookMiddlewareOptions): void {
  if (keysOf(opts).length === 0)
    throw new Error('@cluster/webhook-verify: give the middleware a `secret` (hmac-sha256) or a `publicKey` (ed25519)');
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * Koa middleware: verifies the delivery, then puts it on `ctx.state.webhook` (and its parsed
 * body on `ctx.request.body` when no parser set one) and calls the next middleware. A refused
 * delivery is answered 401 (400 for a malformed one) with `{error, message}`; a remembered
 * delivery id 200 without calling `next`. Mount it on the webhook route, before any body parser.
 */
export function koaWebhookVerifier(options: WebhookMiddlewareOptions) {
  assertKeys(options);
  return async function verifyWebhook(ctx: KoaLikeContext, next: () => Promise<unknown>): Promise<void> {
    const outcome = await check(ctx.req, [ctx.request.rawBody, ctx.request.body], options);
    if (outcome.kind === 'refused') {
      ctx.status = outcome.status;
      ctx.body = outcome.body;
      return;
    }
    if (outcome.kind === 'duplicate') {
      ctx.status = 200;
      ctx.body = { duplicate: true, id: outcome.webhook.id };
      return;
    }
    ctx.state.webhook = outcome.webhook;
    if (ctx.request.body === undefined || Buffer.isBuffer(ctx.request.body)) ctx.request.body = outcome.webhook.payload;
    await next();
    if (options.replayGuard && isSuccess(ctx.status)) await options.replayGuard.remember(outcome.webhook.id);
  };
}

/**
 * Express middleware: as the Koa one, with the delivery on `req.webhook` (and its parsed body
 * on `req.body` when no parser set one). Works with `express.raw({ type: 'application/json' })`
 * before it, or with no body parser at all.
 */
export function expressWebhookVerifier(options: WebhookMiddlewareOptions) {
  assertKeys(options);
  return function verifyWebhook(req: ExpressLikeRequest, res: ExpressLikeResponse, next: (err?: unknown) => void): void {
    const answer = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(body));
    };
    check(req, [req.rawBody, req.body], options).then(
      (outcome) => {
        if (outcome.kind === 'refused') return answer(outcome.status, outcome.body);
        if (outcome.kind === 'duplicate') return answer(200, { duplicate: true, id: outcome.webhook.id });
        req.webhook = outcome.webhook;
        if (req.body === undefined || Buffer.isBuffer(req.body) || isEmptyObject(req.body)) req.body = outcome.webhook.payload;
        const guard = options.replayGuard;
        if (guard)
          res.on('finish', () => {
            // A failed remember only means a later repeat is processed again (delivery is at least once anyway).
            if (isSuccess(res.statusCode)) Promise.resolve(guard.remember(outcome.webhook.id)).catch(() => undefined);
          });
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/** Express 5 leaves `req.body` undefined without a parser; Express 4 and some parsers set `{}`. */
function isEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}
