// The portal's view of the API's answers: the SDK's types, generated from docs/openapi.json
// (packages/client/src/generated/openapi.ts), so a field the API adds is here without a hand copy.
import type { components } from '../../../packages/client/src/generated/openapi.ts';

type Schemas = components['schemas'];

export type Webhook = Schemas['Webhook'];
/** The body of PATCH /webhooks/:id (every field optional). */
export type WebhookUpdate = Schemas['WebhookUpdate'];
export type EventType = Schemas['EventType'];
/** A delivery as lists give it, and by id with its attempt log. */
export type Delivery = Schemas['Delivery'] & Partial<Pick<Schemas['DeliveryDetail'], 'attemptLog'>>;
export type Attempt = Schemas['DeliveryDetail']['attemptLog'][number];
/** GET /webhooks/:id/stats. */
export type Stats = Schemas['WebhookStats'];
/** One bucket of a subscription's statistics series. */
export type StatsPoint = Stats['series']['points'][number];
/** A page of a list answer. */
export interface Page<T> {
  data: T[];
  total: number;
}
