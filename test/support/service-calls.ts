import { createGrpcTransport } from '@connectrpc/connect-node';
import { attachServiceToken, createTokenSigner, devServiceKeys, type ServiceName } from '@cluster/platform';
import type { Json } from './json.ts';

/**
 * A transport to a backend that calls it as `caller` does, with that service's (development)
 * token for `audience`: for tests that talk to a service directly, as the gateway or delivery would.
 */
export function transportAs(caller: ServiceName, audience: ServiceName, baseUrl: string) {
  return createGrpcTransport({
    baseUrl,
    acceptCompression: [],
    interceptors: [attachServiceToken(createTokenSigner(devServiceKeys(caller)), audience)],
  });
}

/** The JSON an RPC answer carries as bytes (`ResourceResponse.resource`, `ListResponse.data`), parsed. */
export function jsonOf(bytes: Uint8Array): Json {
  return JSON.parse(Buffer.from(bytes).toString());
}
