import { Type, StringEnum, Nullable, Body, DateTime, Uuid } from './common.ts';

/** Delivery statuses (api-decisions.md, "Webhook delivery"). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead_letter'] as const;

const fields = {
  destinationUrl: Type.String({ format: 'uri', description: 'http(s) URL; https only in production; never a private or loopback address' }),
  eventNames: Type.Array(Type.String(), { minItems: 1, description: 'at least one name from the event vocabulary' }),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
};

/** POST /webhooks body: unknown event names answer 400 `{error: 'unknown_event_names', invalid}`. */
export const WebhookCreate = Body(fields, { required: ['destinationUrl', 'eventNames'], description: 'Webhook subscription create body' });

/** PATCH /webhooks/:id body: every field optional; only supplied fields change. */
export const WebhookUpdate = Body(fields, { description: 'Webhook subscription update body' });

/** A subscription as every call but create and rotation returns it: without the secret. */
export const Webhook = Type.Object({
  id: Uuid, destinationUrl: Type.String(), eventNames: Type.Array(Type.String()), enabled: Type.Boolean(),
  description: Nullable(Type.String()), createdAt: DateTime, updatedAt: DateTime,
});

/** Create and rotate-secret answers: the subscription plus its signing secret, shown this once. */
export const WebhookWithSecret = Type.Object({
  id: Uuid, destinationUrl: Type.String(), eventNames: Type.Array(Type.String()), enabled: Type.Boolean(),
  description: Nullable(Type.String()), createdAt: DateTime, updatedAt: DateTime,
  hmacSecret: Type.String({ description: 'signing secret (whsec_...); returned only on creation and rotation' }),
});

/** POST /webhooks/:id/test body (optional): an event name of the subscription; default webhook.test. */
export const WebhookTestBody = Body({ eventName: Type.String({ minLength: 1 }) }, { description: 'Optional test event name' });

/** The spec's test result. */
export const WebhookTestResult = Type.Object({
  deliveryId: Nullable(Uuid), subscriptionId: Uuid, eventName: Type.String(), firedAt: DateTime,
  deliveryError: Type.Optional(Type.String({ description: 'present when the delivery failed' })),
});

/** A delivery record (one event for one subscription, all its attempts). */
export const Delivery = Type.Object({
  id: Uuid, subscriptionId: Uuid, eventName: Type.String(), eventId: Nullable(Uuid), status: StringEnum(DELIVERY_STATUSES),
  attempts: Type.Integer(), responseCode: Nullable(Type.Integer()), responseBody: Nullable(Type.String({ description: 'first 4 KiB' })),
  error: Nullable(Type.String()), durationMs: Nullable(Type.Integer()), nextAttemptAt: Nullable(DateTime),
  createdAt: DateTime, updatedAt: DateTime,
});

/** One delivery by id, with its attempt log. */
export const DeliveryDetail = Type.Intersect([
  Delivery,
  Type.Object({
    attemptLog: Type.Array(Type.Object({
      attempt: Type.Integer(), outcome: StringEnum(['succeeded', 'failed']), responseCode: Nullable(Type.Integer()),
      responseBody: Nullable(Type.String()), error: Nullable(Type.String()), durationMs: Type.Integer(), attemptedAt: DateTime,
    })),
  }),
]);

export const WebhookFilters = { enabled: Type.Boolean() };
export const DeliveryFilters = { status: StringEnum(DELIVERY_STATUSES) };
