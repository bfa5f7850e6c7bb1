import createFetchClient from 'openapi-fetch';
import { ApiPromise, requestIdOf, type WithResponse } from './api-promise.ts';
import { ApiConnectionError, ApiError, ApiTimeoutError } from './errors.ts';
import type { paths } from './generated/openapi.ts';
import { operations } from './generated/operations.ts';
import { checkClientOptions, type ClientOptions } from './options.ts';
import { pageIterator, type Page, type PageIterator } from './pagination.ts';
import { DEFAULT_RETRY, RETRYABLE_REASONS, isRetryableStatus, parseRetryAfter, retryDelay, type RetryOptions } from './retry.ts';

export type { ClientOptions } from './options.ts';

/** Per-call options, the last argument of every method. */
export interface CallOptions {
  /** Cancels the call (attempts and waits); it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** This call's deadline (overrides the client's `timeoutMs`); rejects with ApiTimeoutError. */
  timeoutMs?: number;
  /** POST only: the Idempotency-Key (default: a new random UUID per call, the same on each of its retries). */
  idempotencyKey?: string;
  /** This call's retries (overrides the client's `maxRetries`). */
  maxRetries?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

type Operations = typeof operations;
type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';
type OperationAt<P, M> = P extends keyof paths ? (M extends keyof paths[P] ? NonNullable<paths[P][M]> : never) : never;
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type Responses<O> = O extends { responses: infer R } ? R : never;
/** The parsed body of an operation's success answer (undefined for 204). */
export type ResultOf<O> = {
  [S in keyof Responses<O>]: S extends 200 | 201 | 202 | 204 ? JsonContent<Responses<O>[S]> : never;
}[keyof Responses<O>];
/** An operation's query parameters. */
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** An operation's JSON request body. */
export type BodyOf<O> = O extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;
type PathArgs<A extends readonly string[]> = { -readonly [K in keyof A]: string };
type ItemOf<O> = ResultOf<O> extends { data: (infer T)[] } ? T : never;
type QueryArgs<A extends readonly string[], Q> = [Q] extends [never]
  ? [...PathArgs<A>, options?: CallOptions]
  : object extends Q
    ? [...PathArgs<A>, query?: Q, options?: CallOptions]
    : [...PathArgs<A>, query: Q, options?: CallOptions];

/** One method of a namespace, typed from its row of the operation table and the OpenAPI types. */
type MethodOf<D> = D extends {
  method: infer M;
  path: infer P;
  pathParams: infer A extends readonly string[];
  paged: infer G;
  body: infer B;
}
  ? OperationAt<P, M> extends infer O
    ? G extends true
      ? (...args: QueryArgs<A, Omit<QueryOf<O>, 'page'>>) => PageIterator<ItemOf<O>>
      : B extends 'required'
        ? (...args: [...PathArgs<A>, body: BodyOf<O>, options?: CallOptions]) => ApiPromise<ResultOf<O>>
        : B extends 'optional'
          ? (...args: [...PathArgs<A>, body?: BodyOf<O>, options?: CallOptions]) => ApiPromise<ResultOf<O>>
          : (...args: QueryArgs<A, QueryOf<O>>) => ApiPromise<ResultOf<O>>
    : never
  : never;

/** The resource namespaces (`client.entries.list(...)`), one per OpenAPI tag, derived from the operation table. */
export type Namespaces = { [N in keyof Operations]: { [K in keyof Operations[N]]: MethodOf<Operations[N][K]> } };

/** The typed escape hatch: any operation by method and path. */
export type RequestFn = <P extends keyof paths, M extends HttpMethod & keyof paths[P]>(
  method: M,
  path: P,
  init?: { path?: Record<string, string>; query?: QueryOf<OperationAt<P, M>>; body?: BodyOf<OperationAt<P, M>> } & CallOptions,
) => ApiPromise<ResultOf<OperationAt<P, M>>>;

/** The SDK: a namespace per resource family, and `request` for anything by path. */
export type ApiClient = Namespaces & { request: RequestFn };

interface OperationDef {
  method: string;
  path: string;
  pathParams: readonly string[];
  paged: boolean;
  query: boolean;
  body: string;
}
interface RawResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}
interface RawInit {
  params: { path?: Record<string, string>; query?: unknown };
  body?: unknown;
  headers: Record<string, string>;
  signal?: AbortSignal;
}
type LooseClient = { request(method: string, path: string, init: RawInit): Promise<RawResult> };

const DEFAULT_TIMEOUT_MS = 60_000;

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The signal of one call: it fires when the caller's signal does or at the deadline. Its own
 * controller and a plain timer, not `AbortSignal.timeout`/`AbortSignal.any`: Node holds those
 * signals weakly, so a call whose fetch holds nothing alive (a custom fetch that ignores its
 * signal, a test double) could be collected before its deadline and never settle. The timer and
 * the caller's signal hold this controller until `dispose` (the call's end).
 */
function cancellation(caller: AbortSignal | undefined, timeoutMs: number | undefined) {
  if (!caller && timeoutMs === undefined) return undefined;
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/**
 * `work`, or a rejection with the signal's reason as soon as it fires: a fetch that does not
 * honour its AbortSignal still ends the call at the deadline (its late answer is dropped).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The SDK's client. Every call goes through one path: an Idempotency-Key on each POST (the
 * caller's or a random UUID, the same on every retry of that call), retries of 429, any 5xx, 409
 * idempotency_key_in_use and network errors (jittered exponential backoff, never shorter than
 * Retry-After, at most `maxRetries`, no wait over `maxDelayMs` or past the deadline), a deadline per
 * call and the caller's AbortSignal, an ApiError for every error answer, and the request id of
 * every success (`.withResponse()`, and each page of `.pages()`). The options are checked first:
 * a TypeError names the one that is missing or wrong.
 */
export function createClient(options: ClientOptions): ApiClient {
  const { origin, headers: defaultHeaders } = checkClientOptions(options);
  const policy = { ...DEFAULT_RETRY, ...definedOf(options) };
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const raw = createFetchClient<paths>({
    baseUrl: origin,
    headers: defaultHeaders,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  }) as unknown as LooseClient;

  async function call(
    method: string,
    path: string,
    init: Omit<RawInit, 'headers' | 'signal'>,
    opts: CallOptions = {},
  ): Promise<WithResponse<unknown>> {
    const timeoutMs = opts.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const hasDeadline = timeoutMs > 0 && Number.isFinite(timeoutMs);
    const deadline = hasDeadline ? now() + timeoutMs : Infinity;
    const aborted = (): unknown => (opts.signal?.aborted ? (opts.signal.reason as unknown) : new ApiTimeoutError(timeoutMs));
    const cancel = cancellation(opts.signal, hasDeadline ? timeoutMs : undefined);
    const signal = cancel?.signal;
    const headers = { ...opts.headers };
    if (method === 'post') headers['Idempotency-Key'] = opts.idempotencyKey ?? crypto.randomUUID();
    const maxRetries = opts.maxRetries ?? policy.maxRetries;

    try {
      for (let retry = 0; ; retry++) {
        let failure: ApiError | ApiConnectionError;
        let retryable: boolean;
        try {
          const { data, error, response } = await untilAborted(raw.request(method, path, { ...init, headers, signal }), signal);
          if (response.ok) return { data, requestId: requestIdOf(response), response };
          const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now());
          failure = new ApiError(response.status, error, response.headers, retryAfterMs);
          retryable = isRetryableStatus(response.status) || RETRYABLE_REASONS.has(failure.reason);
        } catch (err) {
          if (signal?.aborted) throw aborted();
          failure = new ApiConnectionError(`${method.toUpperCase()} ${origin}${path}`, err, retry + 1);
          retryable = true;
        }
        if (!retryable || retry >= maxRetries) throw failure;
        const delay = retryDelay(retry + 1, failure instanceof ApiError ? failure.retryAfterMs : undefined, policy, random);
        if (delay === undefined || now() + delay >= deadline) throw failure;
        try {
          await sleep(delay, signal);
        } catch {
          throw aborted();
        }
      }
    } finally {
      cancel?.dispose();
    }
  }

  function method(def: OperationDef) {
    return (...args: unknown[]) => {
      const pathValues = args.slice(0, def.pathParams.length) as string[];
      const path = Object.fromEntries(def.pathParams.map((name, i) => [name, pathValues[i]]));
      const rest = args.slice(def.pathParams.length);
      const takesInput = def.paged || def.query || def.body !== 'none';
      const input = takesInput ? rest[0] : undefined;
      const callOptions = (takesInput ? rest[1] : rest[0]) as CallOptions | undefined;
      if (def.paged) {
        const query = { pageSize: 100, ...(input as Record<string, unknown> | undefined) };
        return pageIterator(
          (page) =>
            call(def.method, def.path, { params: { path, query: { ...query, page } } }, callOptions) as Promise<
              WithResponse<Page<unknown>>
            >,
        );
      }
      if (def.body !== 'none') return new ApiPromise(call(def.method, def.path, { params: { path }, body: input }, callOptions));
      return new ApiPromise(call(def.method, def.path, { params: { path, query: input } }, callOptions));
    };
  }

  const namespaces = Object.fromEntries(
    Object.entries(operations).map(([namespace, defs]) => [
      namespace,
      Object.fromEntries(Object.entries(defs as Record<string, OperationDef>).map(([name, def]) => [name, method(def)])),
    ]),
  ) as unknown as Namespaces;

  const request: RequestFn = (httpMethod, path, init = {}) => {
    const { path: pathParams, query, body, ...callOptions } = init;
    return new ApiPromise(call(httpMethod, path, { params: { path: pathParams, query }, body }, callOptions)) as never;
  };
  return { ...namespaces, request };
}

function definedOf(options: RetryOptions): RetryOptions {
  const { maxRetries, baseDelayMs, maxDelayMs } = options;
  return Object.fromEntries(Object.entries({ maxRetries, baseDelayMs, maxDelayMs }).filter(([, v]) => v !== undefined));
}
