import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { createRpcTransport, type TokenSigner } from '@cluster/platform';
import { AuthService, CodeHostService, EvidenceService } from '@cluster/proto';

/** The backend processes the gateway calls. */
export type Backend = 'core' | 'delivery' | 'evidence';
const BACKENDS: readonly Backend[] = ['core', 'delivery', 'evidence'];

/**
 * The process serving a generated service, from its protobuf package (`cluster.<backend>.v1`): what
 * a route's `backend` is derived from, so nothing but the proto file says where a service runs.
 */
export function backendOf(service: DescService): Backend {
  const backend = BACKENDS.find((b) => service.typeName.startsWith(`cluster.${b}.`));
  if (!backend) throw new Error(`${service.typeName}: not in a backend's package (cluster.core|delivery|evidence.v1)`);
  return backend;
}

/** A Connect client of any backend service, made once per service: what route handlers are given. */
export interface ServiceClients {
  of<S extends DescService>(service: S): Client<S>;
}

/** The backends' clients: any service's by `of`, and the ones the gateway's own steps call, by name. */
export interface Clients extends ServiceClients {
  auth: Client<typeof AuthService>;
  evidence: Client<typeof EvidenceService>;
  codehost: Client<typeof CodeHostService>;
}

/** Clients of the backends, each call carrying the gateway's token for its service (signed by `sign`). */
export function createClients(
  urls: { core: string; delivery: string; evidence: string },
  sign: TokenSigner,
  timeoutMs?: number,
): Clients {
  const transports: Record<Backend, Transport> = {
    core: createRpcTransport(urls.core, { sign, audience: 'core' }, timeoutMs),
    delivery: createRpcTransport(urls.delivery, { sign, audience: 'delivery' }, timeoutMs),
    evidence: createRpcTransport(urls.evidence, { sign, audience: 'evidence' }, timeoutMs),
  };
  return clientsOn((service) => transports[backendOf(service)]);
}

/** Clients over the transport `transportOf` gives each service (createClients; tests use in-memory transports). */
export function clientsOn(transportOf: (service: DescService) => Transport): Clients {
  const made = new Map<string, unknown>();
  const of = <S extends DescService>(service: S): Client<S> => {
    let client = made.get(service.typeName) as Client<S> | undefined;
    if (!client) made.set(service.typeName, (client = createClient(service, transportOf(service))));
    return client;
  };
  return {
    of,
    auth: of(AuthService),
    evidence: of(EvidenceService),
    codehost: of(CodeHostService),
  };
}
