import { ConnectError, type Interceptor } from '@connectrpc/connect';
import { requestContext } from './context.ts';

/**
 * What travels with a call besides its message, for an Idempotency-Key and a deadline
 * (docs/decisions-api.md, "How a key holds under every fault"). The gateway's side is here; the
 * backends' side is idempotent-calls.ts.
 */
export const CALL_HEADERS = {
  /** The request's Idempotency-Key, on the route's one backend call. */
  key: 'idempotency-key',
  /** The request's fingerprint: a repeat of the key with another fingerprint is refused. */
  fingerprint: 'idempotency-fingerprint',
  /** On an answer (or a refusal's metadata): it is the stored outcome of an earlier call. */
  replayed: 'idempotent-replayed',
  /** Connect's relative deadline (ms), as connect-es sends it. */
  timeout: 'connect-timeout-ms',
  /** gRPC's (`10S`, `500m`). */
  grpcTimeout: 'grpc-timeout',
  /**
   * The absolute deadline, epoch ms, set by the cluster's own transport: a backend frozen before it
   * read the call can still tell that its caller gave up.
   */
  deadline: 'cluster-deadline',
} as const;

/** The Idempotency-Key of the request being served, for its route's backend operation. */
export interface KeyedRequest {
  key: string;
  fingerprint: string;
  /** `Service/Method` of the route's operation: no other call carries the key. */
  operation: string;
  /** Set once the operation's call was made: a second call of it carries no key. */
  sent?: boolean;
  /** Set when the backend answered with a stored outcome. */
  replayed?: boolean;
}

const GRPC_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };

/**
 * A call's deadline, epoch ms: the earliest of what its headers say (Connect's or gRPC's timeout
 * from `receivedAt`, and the cluster's absolute one); undefined when they say nothing.
 */
export function deadlineOf(header: Headers, receivedAt = Date.now()): number | undefined {
  const found: number[] = [];
  const relative = Number(header.get(CALL_HEADERS.timeout) ?? NaN);
  if (Number.isFinite(relative) && relative > 0) found.push(receivedAt + relative);
  const grpc = /^(\d{1,8})([HMSmun])$/.exec(header.get(CALL_HEADERS.grpcTimeout) ?? '');
  if (grpc) found.push(receivedAt + Number(grpc[1]) * GRPC_UNIT_MS[grpc[2]]);
  const absolute = Number(header.get(CALL_HEADERS.deadline) ?? NaN);
  if (Number.isFinite(absolute) && absolute > 0) found.push(absolute);
  return found.length ? Math.min(...found) : undefined;
}

/**
 * The gateway's side: the route's operation call carries the request's Idempotency-Key and
 * fingerprint (once), and an answer or refusal the backend marks as replayed marks the request.
 */
export const forwardIdempotencyKey: Interceptor = (next) => async (req) => {
  const keyed = requestContext.getStore()?.idempotency;
  if (!keyed || keyed.sent || keyed.operation !== `${req.service.typeName}/${req.method.name}`) return next(req);
  keyed.sent = true;
  req.header.set(CALL_HEADERS.key, keyed.key);
  req.header.set(CALL_HEADERS.fingerprint, keyed.fingerprint);
  try {
    const res = await next(req);
    if (res.header.get(CALL_HEADERS.replayed) === 'true') keyed.replayed = true;
    return res;
  } catch (err) {
    if (err instanceof ConnectError && err.metadata.get(CALL_HEADERS.replayed) === 'true') keyed.replayed = true;
    throw err;
  }
};
