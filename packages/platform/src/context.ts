import { AsyncLocalStorage } from 'node:async_hooks';

/** Per-request context, carried across awaits so logs and RPCs share one request id. */
export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
