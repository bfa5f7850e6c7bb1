import type http from 'node:http';
import { create, fromBinary, toBinary, type DescMethodUnary, type DescService } from '@bufbuild/protobuf';
import {
  Code,
  ConnectError,
  createContextValues,
  createMethodImplSpec,
  createServiceImplSpec,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from '@connectrpc/connect';
import { codeFromHttpStatus, codeToHttpStatus, errorFromJsonBytes, errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { Pool, errors as undiciErrors } from 'undici';
import { CALL_HEADERS } from './call-headers.ts';

/**
 * The cluster's own calls: the Connect protocol's unary call with a binary message over
 * HTTP/1.1 keep-alive (https://connectrpc.com/docs/protocol/#unary-request), both ends.
 *
 * On the wire this is exactly what `@connectrpc/connect-node` sends and answers (any Connect
 * client can call a backend this way, and the backends still answer every other Connect, gRPC
 * and gRPC-Web call through connect-node). What is left out is the library's per-call
 * machinery, which costs more than a whole read is allowed to (bench/README.md, "The internal
 * transport"): HTTP/2 streams, async-iterable bodies, a deadline timer, linked abort controllers
 * and `Headers` copies per call. The interceptors are the same functions, run in the same order,
 * on the same `UnaryRequest` shape, and errors keep Connect's JSON form and codes (the library's
 * own `errorToJsonBytes`/`errorFromJsonBytes`).
 */

const CONTENT_TYPE = 'application/proto';
/** Nothing in the cluster aborts a call from the server's side: one signal that never fires. */
const NEVER = new AbortController().signal;
/** The most connections a caller opens to one backend (each carries one call at a time). */
const MAX_CONNECTIONS = 128;
/** The largest request body a backend reads on this path (Connect's own default is unlimited). */
export const MAX_UNARY_BYTES = 32 * 1024 * 1024;

/**
 * The headers of an answer that belong to its HTTP connection and framing, not to the call: they are
 * not the call's answer headers or error metadata. A handler that passes a downstream call's error
 * on would otherwise send them as its own, and `connection` and its kin are forbidden on HTTP/2 (a
 * gRPC caller's stream: Node throws when the trailers are written).
 */
const HTTP_FRAMING = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
  'content-type',
  'content-encoding',
  'date',
]);

/** A registered unary method with its implementation and the interceptors around it. */
interface UnaryEntry {
  service: DescService;
  method: DescMethodUnary;
  call: (req: UnaryRequest) => Promise<UnaryResponse>;
}

/** Runs `final` inside `interceptors` (the first is outermost), as connect-es does. */
function intercept(interceptors: readonly Interceptor[], final: (req: UnaryRequest) => Promise<UnaryResponse>) {
  return interceptors.reduceRight(
    (next, interceptor) => interceptor(next as never) as (req: UnaryRequest) => Promise<UnaryResponse>,
    final,
  );
}

/**
 * Server side. Wraps a routes function so that, besides registering with connect-node's router,
 * it records every unary implementation (of `service` and `rpc` alike); `handle` then answers a unary Connect call with a binary
 * message over HTTP/1.1 and returns true, or returns false for anything else (JSON, gRPC, GET,
 * compression, an unknown path: connect-node answers those, with the same interceptors).
 */
export function createUnaryHandler(routes: (router: ConnectRouter) => void, interceptors: readonly Interceptor[]) {
  const byPath = new Map<string, UnaryEntry>();
  const record = (spec: MethodImplSpec) => {
    if (spec.kind !== 'unary') return;
    const { method, impl } = spec;
    const call = intercept(interceptors, async (req) => {
      const out = await impl(req.message, handlerContext(req));
      return {
        stream: false,
        service: method.parent,
        method,
        header: new Headers(),
        trailer: new Headers(),
        message: create(method.output, out),
      };
    });
    byPath.set(`/${method.parent.typeName}/${method.name}`, { service: method.parent, method, call });
  };
  const recordingRoutes = (router: ConnectRouter): void => {
    const recording: ConnectRouter = {
      get handlers() {
        return router.handlers;
      },
      service(service, implementation, options) {
        Object.values(createServiceImplSpec(service, implementation).methods).forEach(record);
        router.service(service, implementation, options);
        return recording;
      },
      rpc(method, impl, options) {
        record(createMethodImplSpec(method, impl));
        router.rpc(method, impl, options);
        return recording;
      },
    };
    routes(recording);
  };

  function handle(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    if (req.method !== 'POST' || req.headers['content-type'] !== CONTENT_TYPE) return false;
    const encoding = req.headers['content-encoding'];
    if (encoding && encoding !== 'identity') return false;
    const path = req.url ?? '';
    const entry = byPath.get(path);
    if (!entry) return false;
    const chunks: Buffer[] = [];
    let size = Number(req.headers['content-length'] ?? 0) > MAX_UNARY_BYTES ? Infinity : 0;
    const refused = () => {
      if (size <= MAX_UNARY_BYTES) return false;
      refuseTooLarge(req, res);
      return true;
    };
    if (refused()) return true;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (!refused()) chunks.push(chunk);
    });
    req.on('end', () => {
      if (!refused()) void answer(entry, req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    return true;
  }

  return { routes: recordingRoutes, handle };
}

async function answer(entry: UnaryEntry, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
  let message;
  try {
    message = fromBinary(entry.method.input, body);
  } catch (err) {
    return fail(res, new ConnectError(`cannot decode the request: ${(err as Error).message}`, Code.InvalidArgument));
  }
  const header = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') header.set(name, value);
  }
  try {
    const out = await entry.call({
      stream: false,
      service: entry.service,
      method: entry.method,
      requestMethod: 'POST',
      url: req.url ?? '',
      signal: NEVER,
      header,
      contextValues: createContextValues(),
      message,
    });
    const bytes = toBinary(entry.method.output, out.message);
    if (res.headersSent || res.destroyed) return;
    res.writeHead(200, { ...headersOf(out.header), 'content-type': CONTENT_TYPE, 'content-length': bytes.byteLength });
    res.end(bytes);
  } catch (err) {
    // The interceptors turn every failure into a ConnectError (server.ts); anything else is a bug here.
    fail(res, err instanceof ConnectError ? err : new ConnectError('internal error', Code.Internal));
  }
}

/** Answers resource_exhausted without reading the rest of the body, and closes the connection. */
function refuseTooLarge(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (res.headersSent) return;
  res.shouldKeepAlive = false;
  res.on('finish', () => req.destroy());
  fail(res, new ConnectError(`request larger than ${MAX_UNARY_BYTES} bytes`, Code.ResourceExhausted));
}

/** A Connect unary error: the code's HTTP status and the JSON error body. */
function fail(res: http.ServerResponse, err: ConnectError): void {
  if (res.headersSent || res.destroyed) return;
  const bytes = errorToJsonBytes(err, {});
  res.writeHead(codeToHttpStatus(err.code), {
    ...headersOf(err.metadata),
    'content-type': 'application/json',
    'content-length': bytes.byteLength,
  });
  res.end(bytes);
}

/** An answer's headers (or an error's metadata) as HTTP headers: Connect's unary protocol sends them so. */
function headersOf(header: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  header.forEach((value, name) => (out[name] = value));
  return out;
}

/** The context an implementation gets (none of the cluster's reads it; complete for the day one does). */
function handlerContext(req: UnaryRequest): HandlerContext {
  let responseHeader: Headers | undefined;
  let responseTrailer: Headers | undefined;
  return {
    method: req.method,
    service: req.service,
    signal: req.signal,
    timeoutMs: () => undefined,
    requestMethod: req.requestMethod,
    requestHeader: req.header,
    get responseHeader() {
      return (responseHeader ??= new Headers());
    },
    get responseTrailer() {
      return (responseTrailer ??= new Headers());
    },
    protocolName: 'connect',
    values: req.contextValues,
    url: req.url,
  };
}

/**
 * Client side: a Transport (for `createClient`) making unary Connect calls with binary messages
 * over a pool of HTTP/1.1 keep-alive connections (undici), through `interceptors`. A call that
 * gets no answer within its deadline fails with deadline_exceeded (undici's timers are coarse: within
 * a second after it is due; deadlines here are seconds); a connection that cannot be
 * made or breaks fails with unavailable. A server-streaming call (WebhookService/Listen, the one the
 * contracts have) goes through connect-node's Connect transport over HTTP/1.1, with the same interceptors
 * and binary messages: a stream is one long call, where the short path's per-call savings do not matter.
 */
export function createUnaryTransport(opts: {
  baseUrl: string;
  interceptors: readonly Interceptor[];
  /** The deadline of a call that names none (CallOptions.timeoutMs); sent as connect-timeout-ms. */
  timeoutMs: number;
}): Transport {
  const origin = new URL(opts.baseUrl).origin;
  const pool = new Pool(origin, { connections: MAX_CONNECTIONS, pipelining: 1 });
  const send = async (req: UnaryRequest): Promise<UnaryResponse> => {
    const headers: Record<string, string> = {};
    req.header.forEach((value, name) => (headers[name] = value));
    headers['content-type'] = CONTENT_TYPE;
    headers['connect-protocol-version'] = '1';
    const timeout = Number(headers['connect-timeout-ms']) || undefined;
    let status: number;
    let type: string | undefined;
    let bytes: Uint8Array;
    const answerHeader = new Headers();
    try {
      const res = await pool.request({
        method: 'POST',
        path: `/${req.service.typeName}/${req.method.name}`,
        headers,
        body: toBinary(req.method.input, req.message),
        signal: req.signal === NEVER ? undefined : req.signal,
        headersTimeout: timeout ?? 0,
        bodyTimeout: timeout ?? 0,
      });
      status = res.statusCode;
      type = res.headers['content-type'] as string | undefined;
      for (const [name, value] of Object.entries(res.headers))
        if (typeof value === 'string' && !HTTP_FRAMING.has(name)) answerHeader.set(name, value);
      bytes = new Uint8Array(await res.body.arrayBuffer());
    } catch (err) {
      throw transportError(err);
    }
    if (status === 200 && type === CONTENT_TYPE) {
      return {
        stream: false,
        service: req.service,
        method: req.method,
        header: answerHeader,
        trailer: new Headers(),
        message: fromBinary(req.method.output, bytes),
      };
    }
    const fallback = new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), answerHeader);
    throw type === 'application/json' ? errorFromJsonBytes(bytes, answerHeader, fallback) : fallback;
  };
  const call = intercept(opts.interceptors, send);
  let streaming: Transport | undefined;
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      // As connect-es: the transport's default unless the call names one; zero or less is none.
      const timeout = timeoutMs === undefined ? opts.timeoutMs : timeoutMs > 0 ? timeoutMs : undefined;
      const requestHeader = new Headers(header);
      if (timeout !== undefined) {
        requestHeader.set(CALL_HEADERS.timeout, String(timeout));
        // And the absolute deadline, which a backend frozen before it read the call can still check (call-headers.ts).
        requestHeader.set(CALL_HEADERS.deadline, String(Date.now() + timeout));
      }
      return (await call({
        stream: false,
        service: method.parent,
        method,
        requestMethod: 'POST',
        url: `${origin}/${method.parent.typeName}/${method.name}`,
        signal: signal ?? NEVER,
        header: requestHeader,
        contextValues: contextValues ?? createContextValues(),
        message: create(method.input, input),
      })) as never;
    },
    stream(...args) {
      streaming ??= createConnectTransport({
        baseUrl: origin,
        httpVersion: '1.1',
        useBinaryFormat: true,
        interceptors: [...opts.interceptors],
      });
      return streaming.stream(...args);
    },
  };
}

/** An undici failure as the Connect error connect-node would give for it. */
function transportError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new ConnectError('the call timed out', Code.DeadlineExceeded, undefined, undefined, err);
  }
  if (err instanceof undiciErrors.RequestAbortedError || (err as Error)?.name === 'AbortError') {
    return new ConnectError('the call was cancelled', Code.Canceled, undefined, undefined, err);
  }
  return new ConnectError(
    `the service is unreachable: ${(err as Error)?.message ?? err}`,
    Code.Unavailable,
    undefined,
    undefined,
    err,
  );
}
