import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Code, type ConnectError, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { Logger } from './logger.ts';
import { codeName, type Metrics } from './metrics.ts';
import { requestContext } from './context.ts';
import { MAX_UNARY_BYTES, createUnaryHandler } from './connect-unary.ts';
import { isDependencyUnavailable, toConnectError } from './errors.ts';
import { bearerOf, requireServiceToken, type CallerTrust } from './service-auth.ts';
import { ROOT_CONTEXT, SpanKind, headersGetter, inSpan, propagation } from './telemetry.ts';

import type { Readiness } from './readiness.ts';

export interface ServiceServerOptions {
  /** Service name for spans. */
  service: string;
  routes: (router: ConnectRouter) => void;
  logger: Logger;
  metrics: Metrics;
  /** What /readyz answers (readiness.ts): ready when the service can serve its own traffic. */
  ready: Readiness['probe'];
  /** Who may call, and how a call's actor is verified (service-auth.ts). */
  trust: CallerTrust;
  /** Run after the caller is proven, around the handler (the bootstrap's: deadlines and Idempotency-Keys, idempotent-calls.ts). */
  interceptors?: Interceptor[];
}

export interface ServiceServer {
  /** Listens on `host` (LISTEN_HOST: 127.0.0.1 unless configured) and resolves the port. */
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
  /** Marks the service as not ready (first phase of shutdown). */
  drain(): void;
}

/**
 * One port for everything a backend serves: gRPC and Connect over HTTP/2 (h2c),
 * Connect over HTTP/1.1, and /healthz, /readyz, /metrics over either. The first
 * bytes of a connection tell HTTP/2 (its preface starts with "PRI") from HTTP/1.
 */
export function createServiceServer(opts: ServiceServerOptions): ServiceServer {
  const { logger, metrics, service } = opts;
  let draining = false;

  const observe: Interceptor = (next) => async (req) => {
    const requestId = req.header.get('x-request-id') ?? randomUUID();
    const method = req.method.name;
    const end = metrics.rpcDuration.startTimer({ method });
    // The call's trace is the one its caller sent, and nothing else: the HTTP instrumentation makes no span
    // for an RPC and runs it with tracing suppressed (instrumentation.ts), which this leaves behind.
    const parent = propagation.extract(ROOT_CONTEXT, req.header, headersGetter);
    const rpcName = `${req.service.typeName}/${method}`;
    return requestContext.run({ requestId }, () =>
      inSpan(
        service,
        rpcName,
        { kind: SpanKind.SERVER, parent, attributes: { 'rpc.system': 'connect_rpc', 'rpc.method': method } },
        async () => {
          const failed = (err: unknown): ConnectError => {
            const connectErr = toConnectError(err);
            if (connectErr.rawMessage === 'internal error') logger.error({ err, method }, 'rpc failed');
            else if (isDependencyUnavailable(err)) logger.warn({ err, method }, 'rpc answered unavailable: a dependency failed');
            metrics.rpcRequests.inc({ method, code: codeName(connectErr.code) });
            end();
            return connectErr;
          };
          let res: Awaited<ReturnType<typeof next>>;
          try {
            res = await next(req);
          } catch (err) {
            throw failed(err);
          }
          if (!res.stream) {
            metrics.rpcRequests.inc({ method, code: 'ok' });
            end();
            return res;
          }
          // A server stream's outcome is known at its end: an error while it runs is logged, counted and
          // timed as a unary call's failure is, not lost between the handler and the transport.
          const messages = res.message;
          async function* observed() {
            let outcome: 'ok' | 'failed' | undefined;
            try {
              yield* messages;
              outcome = 'ok';
            } catch (err) {
              outcome = 'failed';
              throw failed(err);
            } finally {
              // Ended by the caller (a closed connection): counted as canceled, the stream's usual end.
              if (outcome !== 'failed') {
                metrics.rpcRequests.inc({ method, code: outcome === 'ok' ? 'ok' : codeName(Code.Canceled) });
                end();
              }
            }
          }
          return { ...res, message: observed() };
        },
      ),
    );
  };

  // Internal traffic is not compressed (see rpc.ts). Every call proves its caller first (service-auth.ts).
  // The cluster's own calls (unary, binary, HTTP/1.1) take the short path of connect-unary.ts; connect-node
  // answers everything else. Both run the same interceptors.
  const interceptors = [observe, requireServiceToken(opts.trust), ...(opts.interceptors ?? [])];
  const unary = createUnaryHandler(opts.routes, interceptors);
  // Both paths bound a request's body by the same size (the largest legitimate message: a code-host delivery).
  const rpc = connectNodeAdapter({ routes: unary.routes, interceptors, acceptCompression: [], readMaxBytes: MAX_UNARY_BYTES });

  const handle = async (
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json'): void => {
      (res as http.ServerResponse).writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (path === '/healthz') return send(200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      const { ready, checks } = await opts.ready().catch(() => ({ ready: false, checks: { check: false } }));
      const ok = !draining && ready;
      return send(ok ? 200 : 503, JSON.stringify({ ready: ok, draining, checks }));
    }
    if (path === '/metrics') {
      return send(200, await metrics.registry.metrics(), metrics.registry.contentType);
    }
    // A call proves its caller before a byte of its body is read or parsed (docs/security.md, "Bounded
    // before authenticated"): a call without a valid token, or with one for another method than its
    // path names, is answered 401 and its connection closed, its body unread. The interceptor checks the token again with the method's policy (from the
    // verifier's cache), and binds the actor.
    const token = bearerOf(req.headers.authorization ?? null);
    if (!token || !(await provesMethod(token, path))) return refuseUnproven(req, res);
    if (req instanceof http.IncomingMessage) {
      // Draining: every HTTP/1.1 answer closes its connection, so callers' pools (connect-unary.ts) take
      // their next calls elsewhere; HTTP/2 sessions get a GOAWAY at close instead.
      if (draining) (res as http.ServerResponse).shouldKeepAlive = false;
      if (unary.handle(req, res as http.ServerResponse)) return;
    }
    (rpc as (a: unknown, b: unknown) => void)(req, res);
  };

  /**
   * Whether `token` verifies and opens the method the URL names (`/<Service>/<Method>`, the token's `mth`):
   * a valid token for another method is refused here too, before a byte of the body (issue 37).
   */
  const provesMethod = (token: string, path: string): Promise<boolean> =>
    opts.trust.verify(token).then(
      (call) => call.method !== undefined && `/${call.method}` === path,
      () => false,
    );

  /** 401 in Connect's error shape (gRPC clients map HTTP 401 to unauthenticated), the body left unread. */
  const refuseUnproven = (
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ) => {
    metrics.rpcRequests.inc({ method: 'unproven', code: 'unauthenticated' });
    const body = JSON.stringify({
      code: 'unauthenticated',
      message: 'this service answers only calls with a valid service token',
    });
    if (res instanceof http.ServerResponse) {
      res.shouldKeepAlive = false;
      res.on('finish', () => req.destroy());
    }
    (res as http.ServerResponse).writeHead(401, { 'content-type': 'application/json' });
    res.end(body);
  };

  const h1 = http.createServer((req, res) => void handle(req, res));
  const h2 = http2.createServer({}, (req, res) => void handle(req, res));
  const sessions = new Set<http2.Http2Session>();
  h2.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  const sockets = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    // RPCs are small request/response exchanges: without this, Nagle's algorithm
    // holds the last HTTP/2 frame until the peer's delayed ACK (~40 ms per call).
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (chunk) => {
      socket.pause();
      // Put the bytes back: HTTP/2 reads the native handle directly and first takes
      // what is buffered (Node >= 15), so no JS stream sits between it and the socket.
      socket.unshift(chunk);
      if (chunk.subarray(0, 3).toString('latin1') === 'PRI') {
        h2.emit('connection', socket);
      } else {
        h1.emit('connection', socket);
        socket.resume();
      }
    });
  });

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        front.once('error', reject);
        front.listen(port, host, () => resolve((front.address() as net.AddressInfo).port));
      });
    },
    drain() {
      draining = true;
    },
    async close() {
      draining = true;
      await new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const s of sessions) s.close();
        h1.closeIdleConnections();
        setTimeout(() => {
          for (const s of sessions) s.destroy();
          for (const sock of sockets) sock.destroy();
        }, 2000).unref();
      });
    },
  };
}
