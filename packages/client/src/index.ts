// @cluster/client: the TypeScript SDK of the feedback platform's developer API. See README.md
// and docs/sdk.md. The types and the operation table are generated from docs/openapi.json
// (src/generated, `npm run openapi`); this layer adds pagination, retries, idempotency,
// deadlines, typed errors and request ids, and re-exports the webhook verifier.
export {
  createClient,
  type ApiClient,
  type BodyOf,
  type CallOptions,
  type ClientOptions,
  type Namespaces,
  type QueryOf,
  type RequestFn,
  type ResultOf,
} from './client.ts';
export { ApiPromise, type WithResponse } from './api-promise.ts';
export { ApiConnectionError, ApiError, ApiTimeoutError, type ApiErrorBody, type ApiErrorReason } from './errors.ts';
export { pageIterator, type Page, type PageIterator, type ResponsePage } from './pagination.ts';
export { DEFAULT_RETRY, parseRetryAfter, retryDelay, type RetryOptions } from './retry.ts';
export { operations, REASONS } from './generated/operations.ts';
import type { components } from './generated/openapi.ts';
export type { components, operations as openapiOperations, paths } from './generated/openapi.ts';
/** The API's schemas by name: `Schemas['Entry']`, `Schemas['ProjectCreate']`, ... */
export type Schemas = components['schemas'];
export { constructEvent, type EventName, type WebhookEvent } from './events.ts';
export * from './webhooks.ts';
