import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, Nullable, StringEnum, Uuid, propertiesOf } from './common.ts';

/** Delivery statuses (docs/decisions-api.md, "Webhook delivery"). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead_letter'] as const;

/** Every field of a subscription answer, in order: never its secret (shown once, on create and rotation). */
export const WEBHOOK_FIELDS = [
  'id',
  'destinationUrl',
  'eventNames',
  'enabled',
  'description',
  'ordering',
  'signatureScheme',
  'publicKey',
  'disabledReason',
  'consecutiveFailures',
  'failingSince',
  'createdAt',
  'updatedAt',
] as const;
/**
 * Why the service disabled a subscription (docs/webhooks.md): `gone`, its endpoint answered 410 Gone;
 * `failing`, every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS. Null while enabled, or disabled by a PATCH.
 */
export const DISABLED_REASONS = ['gone', 'failing'] as const;
/** The fields a subscription body may set, on create and update. */
export const WEBHOOK_WRITABLE_FIELDS = ['destinationUrl', 'eventNames', 'description', 'enabled', 'ordering'] as const;
/**
 * A subscription's delivery order (docs/webhooks.md): `none` (the default), or `per_entity`: the
 * deliveries of one entity (entityType + entityId) go out strictly in commit order.
 */
export const ORDERINGS = ['none', 'per_entity'] as const;
/**
 * How a subscription's deliveries are signed (docs/signature-schemes.md): `hmac-sha256` (the default), a shared
 * `whsec_` secret, Standard Webhooks `v1` plus `X-Service-Signature`; or `ed25519`, Standard Webhooks `v1a` under
 * a private key that never leaves the service, verified with the `whpk_` public key. Chosen at creation, fixed after.
 */
export const SIGNATURE_SCHEMES = ['hmac-sha256', 'ed25519'] as const;
export type SignatureSchemeName = (typeof SIGNATURE_SCHEMES)[number];
/** Filters of the subscription list. */
export const WEBHOOK_FILTERS = ['enabled'] as const;
/** Every field of a delivery record answer, in order: never the body's signature or the lease. */
export const DELIVERY_FIELDS = [
  'id',
  'subscriptionId',
  'eventName',
  'eventId',
  'status',
  'attempts',
  'responseCode',
  'responseBody',
  'error',
  'durationMs',
  'nextAttemptAt',
  'createdAt',
  'updatedAt',
] as const;
/** Every field of one attempt in a delivery's attempt log, in order. */
export const DELIVERY_ATTEMPT_FIELDS = [
  'attempt',
  'outcome',
  'responseCode',
  'responseBody',
  'error',
  'durationMs',
  'attemptedAt',
] as const;
/** Filters of the delivery list. */
export const DELIVERY_FILTERS = ['status'] as const;

const fields = propertiesOf(WEBHOOK_WRITABLE_FIELDS)({
  destinationUrl: Type.String({
    format: 'uri',
    description: 'http(s) URL; https only in production; never a private or loopback address',
  }),
  eventNames: Type.Array(Type.String(), { minItems: 1, description: 'at least one name from the event vocabulary' }),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  ordering: StringEnum(ORDERINGS, {
    description: 'per_entity: one entity’s deliveries in commit order, each after the one before succeeded or was dead-lettered',
  }),
});

/**
 * POST /webhooks body: unknown event names answer 400 `{error: 'unknown_event_names', invalid}`. `signatureScheme`
 * is a create-only field: the update body has no such property (a PATCH naming it is a 400 validation_error).
 */
export const WebhookCreate = Body(
  {
    ...fields,
    signatureScheme: StringEnum(SIGNATURE_SCHEMES, {
      description:
        'how deliveries are signed: hmac-sha256 (default; a shared whsec_ secret) or ed25519 (Standard Webhooks v1a; you get the whpk_ public key). Fixed once created',
    }),
  },
  {
    required: ['destinationUrl', 'eventNames'],
    description: 'Webhook subscription create body',
  },
);
export type WebhookCreateBody = Static<typeof WebhookCreate>;

/** PATCH /webhooks/:id body: every field optional; only supplied fields change. */
export const WebhookUpdate = Body(fields, { description: 'Webhook subscription update body' });
export type WebhookUpdateBody = Static<typeof WebhookUpdate>;

const webhookFields = propertiesOf(WEBHOOK_FIELDS)({
  id: Uuid,
  destinationUrl: Type.String(),
  eventNames: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  description: Nullable(Type.String()),
  ordering: StringEnum(ORDERINGS),
  signatureScheme: StringEnum(SIGNATURE_SCHEMES, { description: 'how deliveries are signed (chosen at creation)' }),
  publicKey: Nullable(
    Type.String({
      pattern: '^whpk_[A-Za-z0-9+/]{43}=$',
      description:
        'ed25519: the Standard Webhooks public key (whpk_ + base64 of the 32-byte key) that verifies the v1a signatures; null for hmac-sha256',
    }),
  ),
  disabledReason: Nullable(StringEnum(DISABLED_REASONS, { description: 'why the service disabled it; null otherwise' })),
  consecutiveFailures: Type.Integer({ minimum: 0, description: 'failed attempts in a row (any success resets it)' }),
  failingSince: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});

/** A subscription as every call but create and rotation returns it: without the secret. */
export const Webhook = Type.Object(webhookFields);

/**
 * Create and rotate-secret answers: the subscription plus, for hmac-sha256, its signing secret, shown this once.
 * An ed25519 subscription has no shared secret: its answer carries the (new) `publicKey`, never the private key.
 */
export const WebhookWithSecret = Type.Object({
  ...webhookFields,
  hmacSecret: Type.Optional(
    Type.String({
      description: 'hmac-sha256 only: the signing secret (whsec_...); returned only on creation and rotation',
    }),
  ),
});

/** POST /webhooks/:id/test body (optional): an event name of the subscription; default webhook.test. */
export const WebhookTestBody = Body({ eventName: Type.String({ minLength: 1 }) }, { description: 'Optional test event name' });
export type WebhookTestRequestBody = Static<typeof WebhookTestBody>;

/** Default and longest grace period of a secret rotation (the replaced secret keeps signing beside the new one). */
export const SECRET_GRACE_DEFAULT_SECONDS = 86_400;
export const SECRET_GRACE_MAX_SECONDS = 604_800;

/** POST /webhooks/:id/rotate-secret body (optional). */
export const WebhookRotateSecret = Body(
  {
    gracePeriodSeconds: Type.Integer({
      minimum: 0,
      maximum: SECRET_GRACE_MAX_SECONDS,
      description:
        'how long the replaced secret (or ed25519 private key) keeps signing beside the new one (default 86400, at most 7 days; 0: at once)',
    }),
  },
  { description: 'Secret rotation body (optional)' },
);
export type WebhookRotateSecretBody = Static<typeof WebhookRotateSecret>;

/** The spec's test result. */
export const WebhookTestResult = Type.Object({
  deliveryId: Nullable(Uuid),
  subscriptionId: Uuid,
  eventName: Type.String(),
  firedAt: DateTime,
  deliveryError: Type.Optional(Type.String({ description: 'present when the delivery failed' })),
});

/** A delivery record (one event for one subscription, all its attempts). */
export const Delivery = Type.Object(
  propertiesOf(DELIVERY_FIELDS)({
    id: Uuid,
    subscriptionId: Uuid,
    eventName: Type.String(),
    eventId: Nullable(Uuid),
    status: StringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer(),
    responseCode: Nullable(Type.Integer()),
    responseBody: Nullable(Type.String({ description: 'first 4 KiB' })),
    error: Nullable(Type.String()),
    durationMs: Nullable(Type.Integer()),
    nextAttemptAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  }),
);

/** One delivery by id, with its attempt log. */
export const DeliveryDetail = Type.Intersect([
  Delivery,
  Type.Object({
    attemptLog: Type.Array(
      Type.Object(
        propertiesOf(DELIVERY_ATTEMPT_FIELDS)({
          attempt: Type.Integer(),
          outcome: StringEnum(['succeeded', 'failed']),
          responseCode: Nullable(Type.Integer()),
          responseBody: Nullable(Type.String()),
          error: Nullable(Type.String()),
          durationMs: Type.Integer(),
          attemptedAt: DateTime,
        }),
      ),
    ),
  }),
]);

/** Query schemas of the subscription filters. */
export const WebhookFilters = propertiesOf(WEBHOOK_FILTERS)({ enabled: Type.Boolean() });
/** Query schemas of the delivery filters. */
export const DeliveryFilters = propertiesOf(DELIVERY_FILTERS)({ status: StringEnum(DELIVERY_STATUSES) });

/** The windows of GET /webhooks/:id/stats, and their length. */
export const STATS_WINDOWS = { '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

/** GET /webhooks/:id/stats query. */
export const WebhookStatsQuery = Type.Object(
  {
    window: Type.Optional(
      StringEnum(Object.keys(STATS_WINDOWS) as StatsWindow[], { description: 'the last 24 hours (default) or 7 days' }),
    ),
  },
  { additionalProperties: false },
);

/** GET /webhooks/:id/stats: a subscription's delivery statistics over a window (docs/webhooks.md). */
export const WebhookStats = Type.Object(
  {
    subscriptionId: Uuid,
    window: StringEnum(Object.keys(STATS_WINDOWS) as StatsWindow[]),
    since: DateTime,
    deliveries: Type.Object(
      {
        total: Type.Integer({ minimum: 0 }),
        ...Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, Type.Integer({ minimum: 0 })])),
      },
      {
        additionalProperties: false,
        description: 'deliveries created in the window, by their status now (test deliveries excluded)',
      },
    ),
    successRatio: Nullable(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'succeeded / (succeeded + failed + dead_letter); null when none is finished',
      }),
    ),
    attempts: Type.Object(
      {
        total: Type.Integer({ minimum: 0 }),
        succeeded: Type.Integer({ minimum: 0 }),
        failed: Type.Integer({ minimum: 0 }),
        p50DurationMs: Nullable(Type.Integer()),
        p95DurationMs: Nullable(Type.Integer()),
      },
      { additionalProperties: false, description: 'attempts made in the window' },
    ),
    lastSuccessAt: Nullable(DateTime),
    lastFailureAt: Nullable(DateTime),
  },
  { additionalProperties: false, description: "A subscription's delivery statistics" },
);

/** POST /webhooks/:id/recover body. */
export const WebhookRecoverBody = Body(
  {
    since: Type.String({
      format: 'date-time',
      description: 'deliveries created at or after this time (within the retention period)',
    }),
    until: Type.String({ format: 'date-time', description: 'and before this time (default: now)' }),
  },
  { required: ['since'], description: 'Recovery window' },
);
export type WebhookRecoverRequestBody = Static<typeof WebhookRecoverBody>;

/** States of a recovery. */
export const RECOVERY_STATUSES = ['running', 'completed'] as const;

/** A recovery: failed and dead-lettered deliveries of a window, queued again (docs/webhooks.md). */
export const WebhookRecovery = Type.Object(
  {
    id: Uuid,
    subscriptionId: Uuid,
    since: DateTime,
    until: DateTime,
    status: StringEnum(RECOVERY_STATUSES),
    requeued: Type.Integer({ minimum: 0, description: 'deliveries queued again so far' }),
    createdAt: DateTime,
    completedAt: Nullable(DateTime),
  },
  { additionalProperties: false, description: 'A delivery recovery' },
);
