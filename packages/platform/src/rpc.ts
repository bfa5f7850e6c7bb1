import type { Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { Transport } from '@connectrpc/connect';
import { currentRequestId } from './context.ts';
import { context, headersSetter, propagation } from './telemetry.ts';

/** Forwards the current request id to the backend. */
const forwardRequestId: Interceptor = (next) => (req) => {
  const id = currentRequestId();
  if (id) req.header.set('x-request-id', id);
  propagation.inject(context.active(), req.header, headersSetter);
  return next(req);
};

/** gRPC over HTTP/2 to a backend service, with request-id propagation. */
export function createRpcTransport(baseUrl: string, timeoutMs = 10000): Transport {
  // No compression inside the cluster: the CPU it costs is worth more than the bytes on a local network.
  return createGrpcTransport({ baseUrl, interceptors: [forwardRequestId], defaultTimeoutMs: timeoutMs, acceptCompression: [] });
}
