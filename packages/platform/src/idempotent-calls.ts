// A backend's side of an Idempotency-Key and of its caller's deadline (docs/decisions-api.md,
// "How a key holds under every fault"). Reached from service-bootstrap.ts only: it takes in knex.
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor, type UnaryRequest, type UnaryResponse } from '@connectrpc/connect';
import { inAmbientTransaction, type IdempotencyKeys, type Knex, type KeyRecord, type KeyedCall } from '@cluster/db';
import { CALL_HEADERS, deadlineOf } from './call-headers.ts';
import { DomainError, toConnectError, type Reason } from './errors.ts';
import type { SecretBox } from './secret-box.ts';
import { verifiedCallKey } from './service-auth.ts';

export interface IdempotentCallsOptions {
  /** The service's pool (not its ambient twin): a keyed call's transaction is opened on it. */
  pool: Knex;
  /** The service's records (idempotencyKeys of @cluster/db, on its schema). */
  keys: IdempotencyKeys;
  /** The serving pool's statement bound (DB_STATEMENT_TIMEOUT_MS): no transaction waits longer, deadline or not. */
  statementTimeoutMs: number;
  /** Seals stored answers at rest, bound to the API key and the Idempotency-Key (delivery's carry secrets shown once). */
  seal?: SecretBox;
}

/** What a waiting copy of a call leaves before its own deadline to answer 409 in time. */
const CLAIM_MARGIN_MS = 500;
/** Refusals a retry gets again: the backend decided them on the state it read. Not: 401 (the key), 408, 429, 409 in_use. */
const NOT_STORED = new Set<Reason>(['unauthorized', 'request_timeout', 'rate_limit', 'idempotency_key_in_use', 'actor_changed']);

/**
 * Every call: refused (deadline_exceeded) when its caller's deadline has passed, before any work.
 * A call with an Idempotency-Key (the gateway's, for an API key): one transaction that takes the
 * key, runs the handler (every store of the service joins it: ambientDb), stores the answer and
 * commits, unless the deadline passed meanwhile; a repeat gets the stored answer or refusal,
 * marked `idempotent-replayed`. A 4xx refusal is stored after the rollback.
 */
export function idempotentCalls(opts: IdempotentCallsOptions): Interceptor {
  return (next) => async (req) => {
    if (req.stream) return next(req);
    const deadline = deadlineOf(req.header);
    if (pastDeadline(deadline)) throw deadlineExceeded();
    const key = req.header.get(CALL_HEADERS.key);
    if (key === null) return next(req);
    const call = keyedCall(req, key);
    let claimed = false;
    try {
      return await inAmbientTransaction(opts.pool, async (trx) => {
        await bound(trx, deadline, opts.statementTimeoutMs);
        const prior = await opts.keys.claim(trx, call).catch(stillRunning);
        if (prior) return replay(req, call, prior, opts.seal);
        claimed = true;
        const res = (await next(req)) as UnaryResponse;
        // Nothing commits after the caller gave up: the commit can still race the deadline, which the stored answer covers.
        if (pastDeadline(deadline)) throw deadlineExceeded();
        const bytes = Buffer.from(toBinary(req.method.output, res.message)).toString('base64');
        await opts.keys.settle(trx, call, 'answer', opts.seal ? opts.seal.seal(bytes, boundTo(call)) : bytes);
        return res;
      });
    } catch (err) {
      if (claimed && storable(err)) {
        // The call's transaction rolled back: the refusal is a write of its own. Lost, a retry runs again and meets the same rule.
        await opts.keys.recordRefusal(opts.pool, call, JSON.stringify(refusalOf(err))).catch(() => {});
      }
      throw err;
    }
  };
}

/** The call's key, scoped to the API key of the token's actor (never to one a message names). */
function keyedCall(req: UnaryRequest, key: string): KeyedCall {
  const apiKeyId = req.contextValues.get(verifiedCallKey)?.actor?.apiKeyId;
  if (!apiKeyId) throw new DomainError('forbidden', 'an Idempotency-Key belongs to an API key: this call carries none');
  return {
    apiKeyId,
    key,
    fingerprint: req.header.get(CALL_HEADERS.fingerprint) ?? '',
    operation: `${req.service.typeName}/${req.method.name}`,
  };
}

/**
 * Bounds the transaction by what is left of the deadline: each statement, each idle gap (a process
 * frozen mid-transaction: Postgres ends it and frees the key) and each wait on a lock: taking the
 * key waits on a copy of the call in flight, and ends early enough to answer 409 in time (a lock
 * wait of the handler's that runs out is a 503, as a statement timeout is).
 */
async function bound(trx: Knex.Transaction, deadline: number | undefined, statementTimeoutMs: number): Promise<void> {
  const left = Math.max(1, Math.floor(Math.min(deadline === undefined ? Infinity : deadline - Date.now(), statementTimeoutMs)));
  const claimWait = Math.max(1, left - CLAIM_MARGIN_MS);
  await trx.raw(
    `SET LOCAL statement_timeout = ${left}; SET LOCAL idle_in_transaction_session_timeout = ${left}; SET LOCAL lock_timeout = ${claimWait}`,
  );
}

/** A copy of the call still holds the key when the wait ran out (lock_not_available): 409. */
function stillRunning(err: unknown): never {
  if ((err as { code?: unknown }).code === '55P03') {
    throw new DomainError('idempotency_key_in_use', 'a request with this Idempotency-Key is still in progress');
  }
  throw err;
}

/** The stored outcome of an earlier call under the key, as that call answered it. */
function replay(req: UnaryRequest, call: KeyedCall, prior: KeyRecord, seal: SecretBox | undefined): UnaryResponse {
  if (prior.fingerprint !== call.fingerprint || prior.operation !== call.operation) {
    throw new DomainError('idempotency_key_reused', 'this Idempotency-Key was used with another method, path or body');
  }
  const header = new Headers({ [CALL_HEADERS.replayed]: 'true' });
  if (prior.outcome === 'refusal') {
    const { reason, message, details } = JSON.parse(prior.answer) as ReturnType<typeof refusalOf>;
    const err = toConnectError(new DomainError(reason, message, details));
    header.forEach((value, name) => err.metadata.set(name, value));
    throw err;
  }
  const bytes = Buffer.from(seal ? seal.open(prior.answer, boundTo(call)) : prior.answer, 'base64');
  return {
    stream: false,
    service: req.service,
    method: req.method,
    header,
    trailer: new Headers(),
    message: fromBinary(req.method.output, bytes),
  };
}

const boundTo = (call: KeyedCall) => `${call.apiKeyId}|${call.key}`;

function storable(err: unknown): err is DomainError {
  return err instanceof DomainError && err.status < 500 && !NOT_STORED.has(err.reason);
}

function refusalOf(err: DomainError) {
  return { reason: err.reason, message: err.message, details: err.details };
}

function pastDeadline(deadline: number | undefined): boolean {
  return deadline !== undefined && deadline <= Date.now();
}

function deadlineExceeded(): ConnectError {
  return new ConnectError('the caller’s deadline has passed', Code.DeadlineExceeded);
}
