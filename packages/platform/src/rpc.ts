import type { Interceptor, Transport } from '@connectrpc/connect';
import { createUnaryTransport } from './connect-unary.ts';
import { forwardIdempotencyKey } from './call-headers.ts';
import { currentRequestId } from './context.ts';
import { attachServiceToken, type ServiceName, type TokenSigner } from './service-auth.ts';

/**
 * Forwards the current request id to the backend. (The trace context travels too, but the
 * undici instrumentation injects it, with the call's own client span as the parent.)
 */
const forwardRequestId: Interceptor = (next) => (req) => {
  const id = currentRequestId();
  if (id) req.header.set('x-request-id', id);
  return next(req);
};

/**
 * The Connect protocol, binary protobuf, over HTTP/1.1 keep-alive to a backend service
 * (connect-unary.ts), with the request id, the request's Idempotency-Key on its route's call
 * (call-headers.ts) and this service's token for `audience` on every call (service-auth.ts). The backends also answer gRPC and every other Connect call
 * (grpcurl, buf curl, connect-es clients). Why this path and not connect-node's HTTP/2
 * transport: per call it costs a third of the CPU on both sides (bench/rpc.ts, bench/README.md).
 * No compression inside the cluster: the CPU it costs is worth more than the bytes on a local network.
 */
export function createRpcTransport(
  baseUrl: string,
  auth: { sign: TokenSigner; audience: ServiceName },
  timeoutMs = 10000,
): Transport {
  return createUnaryTransport({
    baseUrl,
    interceptors: [forwardRequestId, forwardIdempotencyKey, attachServiceToken(auth.sign, auth.audience)],
    timeoutMs,
  });
}
