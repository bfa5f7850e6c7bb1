import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActorClaims } from './actor-claims.ts';
import type { KeyedRequest } from './call-headers.ts';

/** Per-request context, carried across awaits so logs and RPCs share one request id. */
export interface RequestContext {
  requestId: string;
  /**
   * The API key's actor once the request is authenticated (the gateway sets it): every RPC
   * made for the request carries it in its service token (service-auth.ts).
   */
  actor?: ActorClaims;
  /** A POST's Idempotency-Key (the gateway sets it): its route's backend call carries it (call-headers.ts). */
  idempotency?: KeyedRequest;
  /** On a backend, the service whose token opened the call being served (service-auth.ts). */
  caller?: 'gateway' | 'core' | 'delivery' | 'evidence';
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
