import type { Next } from 'koa';
import { DomainError } from '@cluster/platform';
import type { Clients } from '../clients.ts';
import type { FailureLimit } from './failure-limit.ts';
import { nameRequest, type GatewayContext } from './context.ts';

/** GitHub caps a webhook payload at 25 MB (it sends none larger). */
export const HOOK_BODY_LIMIT = 25 * 1024 * 1024;
const GITHUB_HOOK = /^\/hooks\/github\/([^/]+)$/;
/** GitHub's X-Hub-Signature-256: `sha256=` and 64 hex digits. Anything else cannot verify. */
const SIGNATURE = /^sha256=[0-9a-f]{64}$/i;

/**
 * How much unverified body this replica holds at once (docs/security.md, "Bounded before trusted"). A
 * delivery's body cannot be checked until all of it is read, and only the core holds the organization's
 * secret, so every byte of it is held unverified until the core answers: these bound those bytes. A
 * delivery is admitted before a byte of its body is read, for its declared length (Content-Length; the
 * whole limit when it declares none), and holds its place until answered.
 */
export interface HookLimits {
  /** Deliveries in flight from one client address. */
  perAddress: number;
  /** Deliveries in flight to one organization's URL. */
  perOrganization: number;
  /** Declared body bytes in flight on this replica, all organizations and addresses together. */
  bytes: number;
  /** How long a body may take to arrive (a slow sender must not hold its place). */
  readMs: number;
}

/**
 * One delivery of the largest size at a time per replica, with room for small ones beside it: what a
 * gateway holds unverified stays within its memory limit (256 MiB) whoever sends (test/hooks-flood.test.ts).
 */
export const HOOK_LIMITS: HookLimits = { perAddress: 4, perOrganization: 4, bytes: 32 * 1024 * 1024, readMs: 30_000 };

/** The places in flight: a delivery takes one of its address, one of its organization, and its bytes. */
function createHookAdmission(limits: HookLimits) {
  const byAddress = new Map<string, number>();
  const byOrganization = new Map<string, number>();
  let bytes = 0;
  const inc = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n > 0) m.set(k, n);
    else m.delete(k);
  };
  return {
    /** Takes the places of one delivery, or answers why not (nothing taken). The release is idempotent. */
    admit(address: string, organization: string, length: number): (() => void) | string {
      if ((byAddress.get(address) ?? 0) >= limits.perAddress) return 'too many deliveries in flight from this address';
      if ((byOrganization.get(organization) ?? 0) >= limits.perOrganization) {
        return 'too many deliveries in flight for this organization';
      }
      if (bytes + length > limits.bytes) return 'too many webhook bytes in flight';
      inc(byAddress, address, 1);
      inc(byOrganization, organization, 1);
      bytes += length;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inc(byAddress, address, -1);
        inc(byOrganization, organization, -1);
        bytes -= length;
      };
    },
  };
}

/**
 * Answers without reading the body: the connection is closed once the answer is sent, so the rest of
 * the body is never read (not even to be discarded on a kept-alive connection).
 */
function leaveBodyUnread(ctx: GatewayContext): void {
  ctx.set('Connection', 'close');
  ctx.res.once('finish', () => ctx.req.destroy());
}

/**
 * Reads exactly `length` declared bytes (or, with none declared, up to `limit`) into one buffer: no
 * list of chunks copied again at the end, so a body costs its size once while it is read.
 */
async function readBodyBounded(
  ctx: GatewayContext,
  declared: number | undefined,
  limit: number,
  readMs: number,
): Promise<Buffer> {
  const req = ctx.req;
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    req.destroy();
  }, readMs);
  let buf = Buffer.allocUnsafe(declared ?? Math.min(limit, 64 * 1024));
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (size + chunk.length > (declared ?? limit)) {
        if (declared !== undefined) throw new DomainError('validation_error', 'the body is longer than its Content-Length');
        throw new DomainError('payload_too_large', `request body is larger than ${limit} bytes`);
      }
      if (size + chunk.length > buf.length) {
        const grown = Buffer.allocUnsafe(Math.min(limit, Math.max(buf.length * 2, size + chunk.length)));
        buf.copy(grown, 0, 0, size);
        buf = grown;
      }
      chunk.copy(buf, size);
      size += chunk.length;
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (late) throw new DomainError('request_timeout', `the body did not arrive within ${readMs / 1000} s`);
    throw new DomainError('validation_error', 'request body could not be read');
  } finally {
    clearTimeout(timer);
  }
  if (late) throw new DomainError('request_timeout', `the body did not arrive within ${readMs / 1000} s`);
  if (declared !== undefined && size !== declared) throw new DomainError('validation_error', 'request body could not be read');
  return buf.subarray(0, size);
}

/**
 * `POST /hooks/github/:organizationId` (docs/codehost.md): a GitHub webhook, passed to the core as
 * received (the exact body bytes and the X-GitHub-* and X-Hub-Signature-256 headers). The core
 * checks the signature with the organization's secret, so an answer says nothing before it has:
 * a bad or missing signature is 401 and counts against the client address's limit of failed
 * authentications, as a failed API key does (failure-limit.ts): once the address is over it, a
 * failed signature answers 429 and a missing one is refused without asking the core, while a valid
 * signature always goes through (GitHub delivers from shared addresses). Answers: 200
 * `processed`, `duplicate` (the delivery id was seen) or `pong` (ping); 202 `ignored` (an event the
 * core does not use, or a repository linked to no project); 400 malformed; 415 a form-encoded body.
 *
 * Bounded before trusted (docs/security.md): a delivery without a signature of GitHub's shape, of
 * another media type, or declaring more than 25 MiB is refused before a byte of its body is read; one
 * that does not fit in `limits` (per client address, per organization, bytes of this replica) is
 * refused 429 the same way; the others are read into one buffer of their declared length.
 */
export function createCodeHostHooks(clients: Clients, failureLimit: FailureLimit, limits: HookLimits = HOOK_LIMITS) {
  const admission = createHookAdmission(limits);
  return async function codeHostHooks(ctx: GatewayContext, next: Next): Promise<void> {
    const match = GITHUB_HOOK.exec(ctx.path);
    if (!match) return void (await next());
    nameRequest(ctx, '/hooks/github/:organizationId');
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    const signature = ctx.get('x-hub-signature-256');
    const wellFormed = SIGNATURE.test(signature);
    let bodyRead = false;
    // No id: a signature is of one body, so a refused one is not remembered (a check is always spent on it).
    await failureLimit(ctx, { wellFormed }, async () => {
      // Everything decidable from the headers is decided before a byte of the body is read.
      if (!wellFormed) throw new DomainError('unauthorized', 'a code-host webhook must carry X-Hub-Signature-256 (sha256=...)');
      if (ctx.request.type !== 'application/json') {
        throw new DomainError(
          'unsupported_media_type',
          'a code-host webhook must be sent as application/json (GitHub: the webhook\'s "Content type" setting)',
        );
      }
      const lengthHeader = ctx.get('content-length');
      const declared = lengthHeader === '' ? undefined : /^\d{1,10}$/.test(lengthHeader) ? Number(lengthHeader) : NaN;
      if (Number.isNaN(declared)) throw new DomainError('validation_error', 'Content-Length is not a length');
      if (declared !== undefined && declared > HOOK_BODY_LIMIT) {
        throw new DomainError('payload_too_large', `request body is larger than ${HOOK_BODY_LIMIT} bytes`);
      }
      const admitted = admission.admit(ctx.ip, match[1], declared ?? HOOK_BODY_LIMIT);
      if (typeof admitted === 'string') {
        ctx.set('Retry-After', '1');
        throw new DomainError('rate_limit', `${admitted}; retry later`);
      }
      const release = admitted;
      // A client that goes away frees its place at once.
      ctx.res.once('close', release);
      try {
        const body = await readBodyBounded(ctx, declared, HOOK_BODY_LIMIT, limits.readMs);
        bodyRead = true;
        const res = await clients.codehost.receiveWebhook({
          organizationId: match[1],
          provider: 'github',
          event: ctx.get('x-github-event'),
          deliveryId: ctx.get('x-github-delivery'),
          signature,
          body,
        });
        ctx.status = res.outcome === 'ignored' ? 202 : 200;
        ctx.body = { outcome: res.outcome, ...(res.reason ? { reason: res.reason } : {}), events: res.events };
      } finally {
        release();
      }
    }).catch((err: unknown) => {
      // Refused before its body was read (or part way): the rest of it stays unread.
      if (!bodyRead) leaveBodyUnread(ctx);
      throw err;
    });
  };
}
