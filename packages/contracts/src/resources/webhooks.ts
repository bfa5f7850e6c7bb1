import { Type, type Static } from '@sinclair/typebox';
import { WEBHOOK_FILTER_LIMITS } from '../webhook-filter.ts';
import { Body, DateTime, Nullable, StringEnum, Uuid, YEAR_PATTERN, fieldsOf, propertiesOf } from './common.ts';

/** Delivery statuses (docs/decisions-api.md, "Webhook delivery"). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead_letter'] as const;

/**
 * Why the service disabled a subscription (docs/webhooks.md): `gone`, its endpoint answered 410 Gone;
 * `failing`, every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS. Null while enabled, or disabled by a PATCH.
 */
export const DISABLED_REASONS = ['gone', 'failing'] as const;
/**
 * How a subscription authenticates to its receiver (docs/webhooks.md, "Authenticating to your endpoint"):
 * a static bearer token, HTTP basic credentials, an OAuth2 client-credentials token fetched from the
 * customer's token URL, or a TLS client certificate (the subscription's own, or the platform's).
 */
export const WEBHOOK_AUTH_TYPES = ['bearer', 'basic', 'oauth2', 'mtls'] as const;
export type WebhookAuthType = (typeof WEBHOOK_AUTH_TYPES)[number];
/**
 * Where a subscription's deliveries go (docs/webhooks.md, "Destinations"): an HTTP endpoint (the default, also
 * given as `destinationUrl`), the customer's Kafka topic, a RabbitMQ (AMQP 0-9-1) exchange, or an Amazon SQS queue.
 */
export const WEBHOOK_DESTINATION_TYPES = ['http', 'kafka', 'amqp', 'sqs'] as const;
export type WebhookDestinationType = (typeof WEBHOOK_DESTINATION_TYPES)[number];
/** SASL mechanisms of a Kafka destination. */
export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
/** Bounds of a subscription's custom headers (docs/webhooks.md, "Custom headers"). */
export const WEBHOOK_HEADER_LIMITS = { count: 20, nameLength: 100, valueLength: 4096 } as const;
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
/**
 * Bounds of a subscription's throttling (docs/webhooks.md, "Throttling"): `rateLimit` deliveries per second,
 * `maxInFlight` deliveries sent at once, both across every delivery replica; and the longest pause a receiver's
 * Retry-After (on a 429 or 503) can impose.
 */
export const WEBHOOK_THROTTLE_LIMITS = { rateLimit: { min: 1, max: 10_000 }, maxInFlight: { min: 1, max: 1000 } } as const;
/** Filters of the subscription list. */
export const WEBHOOK_FILTERS = ['enabled', 'temporary'] as const;
/** Filters of the delivery lists (docs/webhooks.md, "Finding what did not arrive"); `since`/`until` bound `createdAt`. */
export const DELIVERY_FILTERS = ['status', 'eventName', 'since', 'until'] as const;

/**
 * A subscription's filter on the event's attributes and payload (docs/webhooks.md, "Filters"): Hookdeck Outpost's
 * JSON filter syntax, matched against the body the subscription would receive (without its `id`). Its rules beyond
 * a JSON object are checked by `checkWebhookFilter` (webhook-filter.ts) when it is saved.
 */
export const WebhookFilterSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'only events whose body matches this JSON filter are delivered (docs/webhooks.md, "Filters"): field names match the body ' +
      '(`eventName`, `entityType`, `entityId`, `occurredAt`, `actorUserId`, `payload`, …) with exact values, nested objects, or ' +
      'the operators $eq, $neq, $gt, $gte, $lt, $lte, $in, $nin, $startsWith, $endsWith, $exist, $or, $and, $not. ' +
      `At most ${WEBHOOK_FILTER_LIMITS.bytes} bytes, ${WEBHOOK_FILTER_LIMITS.depth} levels, ${WEBHOOK_FILTER_LIMITS.nodes} values. On update null (or {}) removes it`,
  },
);

/** Every field a subscription body may set, on create and update, in the order of `changedFields`. */
const fields = {
  destinationUrl: Type.String({
    format: 'uri',
    description: 'http(s) URL; https only in production; never a private or loopback address',
  }),
  destination: Type.Object(
    {
      type: StringEnum(WEBHOOK_DESTINATION_TYPES, {
        description:
          'http: url; kafka: brokers, topic (tls, ca, sasl); amqp: url, exchange, routingKey (username, password, ca); sqs: queueUrl, region (accessKeyId, secretAccessKey)',
      }),
      url: Type.Optional(
        Type.String({
          format: 'uri',
          maxLength: 2048,
          description:
            'http: the endpoint (as destinationUrl); amqp: amqp://host:port/vhost (amqps:// outside development), without credentials',
        }),
      ),
      brokers: Type.Optional(
        Type.Array(Type.String({ minLength: 3, maxLength: 260, description: 'host:port' }), {
          minItems: 1,
          maxItems: 10,
          description: 'kafka: the bootstrap brokers, host:port each; every broker connected to passes the destination rules',
        }),
      ),
      topic: Type.Optional(
        Type.String({ pattern: '^[A-Za-z0-9._-]{1,249}$', description: 'kafka: the topic (must exist); key = the entity id' }),
      ),
      tls: Type.Optional(
        Type.Boolean({ description: 'kafka: TLS to the brokers (required outside development; default true there)' }),
      ),
      ca: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 65_536,
          description: 'kafka, amqp: a CA certificate bundle (PEM) trusted beside the public CAs',
        }),
      ),
      sasl: Type.Optional(
        Type.Object(
          {
            mechanism: StringEnum(KAFKA_SASL_MECHANISMS),
            username: Type.String({ minLength: 1, maxLength: 1024 }),
            password: Type.String({ minLength: 1, maxLength: 4096, writeOnly: true }),
          },
          { additionalProperties: false, description: 'kafka: SASL login (sealed at rest, the password never shown again)' },
        ),
      ),
      exchange: Type.Optional(
        Type.String({ maxLength: 255, description: 'amqp: the exchange published to (must exist; "" is the default exchange)' }),
      ),
      routingKey: Type.Optional(Type.String({ maxLength: 255, description: 'amqp: the routing key of every message' })),
      username: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'amqp: the user' })),
      password: Type.Optional(
        Type.String({ minLength: 1, maxLength: 4096, writeOnly: true, description: 'amqp: the password (sealed at rest)' }),
      ),
      queueUrl: Type.Optional(
        Type.String({
          format: 'uri',
          maxLength: 2048,
          description: 'sqs: the queue URL (https outside development); a .fifo queue is sent MessageGroupId = the entity id',
        }),
      ),
      region: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{1,32}$', description: 'sqs: the AWS region of the queue' })),
      accessKeyId: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 128,
          description: 'sqs: static credentials (with secretAccessKey); absent: the service’s own AWS credentials (role)',
        }),
      ),
      secretAccessKey: Type.Optional(
        Type.String({ minLength: 1, maxLength: 1024, writeOnly: true, description: 'sqs: the secret key (sealed at rest)' }),
      ),
    },
    {
      required: ['type'],
      additionalProperties: false,
      description:
        'where deliveries go (default: http, at destinationUrl); credentials are sealed at rest and shown masked. Replaces destinationUrl when given',
    },
  ),
  eventNames: Type.Array(Type.String(), {
    minItems: 1,
    description: 'at least one name from the event vocabulary, or a wildcard: `family.*` (e.g. `entry.*`) or `*` (every event)',
  }),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  ordering: StringEnum(ORDERINGS, {
    description: 'per_entity: one entity’s deliveries in commit order, each after the one before succeeded or was dead-lettered',
  }),
  headers: Nullable(
    Type.Record(Type.String(), Type.String({ maxLength: WEBHOOK_HEADER_LIMITS.valueLength }), {
      maxProperties: WEBHOOK_HEADER_LIMITS.count,
      writeOnly: true,
      description:
        'static headers sent with every delivery (at most 20), sealed at rest and shown masked; hop-by-hop headers, Host, Content-Length, Content-Type, User-Agent, traceparent and the signature headers (webhook-*, X-Service-*) are refused. On update the set replaces the old one; null removes it',
    }),
  ),
  auth: Nullable(
    Type.Object(
      {
        type: StringEnum(WEBHOOK_AUTH_TYPES, {
          description:
            'bearer: token; basic: username, password; oauth2: tokenUrl, clientId, clientSecret (scope, audience); mtls: certificate, privateKey (both absent: the platform’s client certificate)',
        }),
        token: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 4096,
            writeOnly: true,
            description: 'bearer: sent as `Authorization: Bearer <token>`',
          }),
        ),
        username: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'basic: the user name (no `:`)' })),
        password: Type.Optional(Type.String({ maxLength: 1024, writeOnly: true, description: 'basic: the password' })),
        tokenUrl: Type.Optional(
          Type.String({
            format: 'uri',
            description: 'oauth2: the token endpoint (client credentials grant); the same rules as destinationUrl',
          }),
        ),
        clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'oauth2: the client id' })),
        clientSecret: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 4096,
            writeOnly: true,
            description: 'oauth2: the client secret (sent with HTTP basic)',
          }),
        ),
        scope: Type.Optional(
          Type.String({ minLength: 1, maxLength: 1024, description: 'oauth2: the scope requested (optional)' }),
        ),
        audience: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 1024,
            description: 'oauth2: the audience parameter (optional; Auth0 and others)',
          }),
        ),
        certificate: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 65_536,
            description: 'mtls: the client certificate (PEM), optionally followed by its chain; must not be expired',
          }),
        ),
        privateKey: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 65_536,
            writeOnly: true,
            description: 'mtls: the certificate’s private key (unencrypted PEM)',
          }),
        ),
      },
      {
        required: ['type'],
        additionalProperties: false,
        writeOnly: true,
        description:
          'how deliveries authenticate to the receiver; secrets are sealed at rest and never shown again. null removes it',
      },
    ),
  ),
  rateLimit: Nullable(
    Type.Integer({
      minimum: WEBHOOK_THROTTLE_LIMITS.rateLimit.min,
      maximum: WEBHOOK_THROTTLE_LIMITS.rateLimit.max,
      description:
        'at most this many deliveries per second to this subscription (1 to 10000), evenly spaced, across every delivery replica; null (the default) removes the limit',
    }),
  ),
  maxInFlight: Nullable(
    Type.Integer({
      minimum: WEBHOOK_THROTTLE_LIMITS.maxInFlight.min,
      maximum: WEBHOOK_THROTTLE_LIMITS.maxInFlight.max,
      description:
        'at most this many deliveries to this subscription sent and not yet answered at once (1 to 1000), across every delivery replica; null (the default) removes the cap',
    }),
  ),
  filter: Nullable(WebhookFilterSchema),
};

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
    required: ['eventNames'],
    description: 'Webhook subscription create body: destinationUrl or destination (exactly one)',
  },
);
export type WebhookCreateBody = Static<typeof WebhookCreate>;

/** PATCH /webhooks/:id body: every field optional; only supplied fields change. */
export const WebhookUpdate = Body(fields, { description: 'Webhook subscription update body' });
export type WebhookUpdateBody = Static<typeof WebhookUpdate>;
/** The fields a subscription body may set, on create and update: the update body's. */
export const WEBHOOK_WRITABLE_FIELDS = fieldsOf(WebhookUpdate);

/** A subscription's receiver authentication as answers show it: the type and what is no secret; secrets masked. */
export const WebhookAuthShown = Type.Object(
  {
    type: StringEnum(WEBHOOK_AUTH_TYPES),
    token: Type.Optional(Type.String({ description: 'bearer: masked' })),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ description: 'basic: masked' })),
    tokenUrl: Type.Optional(Type.String()),
    clientId: Type.Optional(Type.String()),
    clientSecret: Type.Optional(Type.String({ description: 'oauth2: masked' })),
    scope: Type.Optional(Type.String()),
    audience: Type.Optional(Type.String()),
    certificate: Type.Optional(
      Type.Object(
        {
          source: StringEnum(['subscription', 'platform'] as const, {
            description: 'subscription: the certificate given; platform: the platform’s own client certificate',
          }),
          subject: Type.Optional(Type.String()),
          issuer: Type.Optional(Type.String()),
          notAfter: Type.Optional(DateTime),
          fingerprintSha256: Type.Optional(Type.String({ description: 'SHA-256 of the DER certificate, colon-separated hex' })),
        },
        { description: 'mtls: which client certificate is presented (never its private key)' },
      ),
    ),
  },
  { description: 'how deliveries authenticate to the receiver, secrets masked' },
);

/** A subscription's destination as answers show it: its type and settings, secrets masked. */
export const WebhookDestinationShown = Type.Object(
  {
    type: StringEnum(WEBHOOK_DESTINATION_TYPES),
    url: Type.Optional(Type.String()),
    brokers: Type.Optional(Type.Array(Type.String())),
    topic: Type.Optional(Type.String()),
    tls: Type.Optional(Type.Boolean()),
    ca: Type.Optional(Type.Boolean({ description: 'whether a CA bundle is set' })),
    sasl: Type.Optional(
      Type.Object({
        mechanism: StringEnum(KAFKA_SASL_MECHANISMS),
        username: Type.String(),
        password: Type.String({ description: 'masked' }),
      }),
    ),
    exchange: Type.Optional(Type.String()),
    routingKey: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String({ description: 'masked' })),
    queueUrl: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    accessKeyId: Type.Optional(Type.String()),
    secretAccessKey: Type.Optional(Type.String({ description: 'masked' })),
  },
  { description: 'where deliveries go, secrets masked' },
);

const webhookFields = {
  id: Uuid,
  destinationUrl: Type.String({
    description:
      'http: the endpoint; other destination types: a readable name of the destination (kafka://…, amqp://…, sqs+https://…)',
  }),
  destination: WebhookDestinationShown,
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
  headers: Type.Record(Type.String(), Type.String(), {
    description:
      'the custom headers sent with every delivery, their values masked (`****` and, for values of 16 characters or more, the last 4)',
  }),
  auth: Nullable(WebhookAuthShown),
  rateLimit: Nullable(Type.Integer({ description: 'deliveries per second at most; null: no limit' })),
  maxInFlight: Nullable(Type.Integer({ description: 'deliveries sent at once at most; null: no cap' })),
  pausedUntil: Nullable(
    Type.String({
      format: 'date-time',
      pattern: YEAR_PATTERN,
      description:
        'the receiver asked for a pause (429 or 503 with Retry-After): no delivery is sent before this time; null or past: not paused',
    }),
  ),
  filter: Nullable(
    Type.Object(
      {},
      { additionalProperties: true, description: 'the JSON filter events must match to be delivered; null: every event' },
    ),
  ),
  disabledReason: Nullable(StringEnum(DISABLED_REASONS, { description: 'why the service disabled it; null otherwise' })),
  consecutiveFailures: Type.Integer({ minimum: 0, description: 'failed attempts in a row (any success resets it)' }),
  failingSince: Nullable(DateTime),
  temporary: Type.Boolean({
    description: 'a listening CLI’s subscription (GET /webhooks/listen): removed when its stream closes',
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
};

/** A subscription as every call but create and rotation returns it: without the secret. */
export const Webhook = Type.Object(webhookFields);
/** Every field of a subscription answer, in order: never its secret (shown once, on create and rotation). */
export const WEBHOOK_FIELDS = fieldsOf(Webhook);

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

/**
 * POST /webhooks/:id/test body (optional): an event name of the subscription (default webhook.test), and with it
 * payload fields of your own that replace the example's (the result checked against the event's payload schema).
 */
export const WebhookTestBody = Body(
  {
    eventName: Type.String({ minLength: 1 }),
    payload: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "with eventName: fields of the event's payload that replace those of the catalogue's example (to try a filter on your own values); the payload that results must fit the event's payload schema",
      },
    ),
  },
  { description: 'Optional test event name, and payload fields of your own' },
);
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
  filterMatched: Type.Optional(
    Type.Boolean({
      description:
        'present when an eventName was asked for: whether that event passes the subscription’s filter (true without one); when it does not, nothing is sent and deliveryId is null. webhook.test is sent whatever the filter says',
    }),
  ),
});

/** A delivery record (one event for one subscription, all its attempts). */
export const Delivery = Type.Object({
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
});

/** Every field of a delivery record answer, in order: never the body's signature or the lease. */
export const DELIVERY_FIELDS = fieldsOf(Delivery);

/** One attempt in a delivery's attempt log. */
const DeliveryAttempt = Type.Object({
  attempt: Type.Integer(),
  outcome: StringEnum(['succeeded', 'failed']),
  responseCode: Nullable(Type.Integer()),
  responseBody: Nullable(Type.String()),
  error: Nullable(Type.String()),
  durationMs: Type.Integer(),
  attemptedAt: DateTime,
});
/** Every field of one attempt in a delivery's attempt log, in order. */
export const DELIVERY_ATTEMPT_FIELDS = fieldsOf(DeliveryAttempt);

/** One delivery by id, with its attempt log. */
export const DeliveryDetail = Type.Intersect([
  Delivery,
  Type.Object({
    attemptLog: Type.Array(DeliveryAttempt),
  }),
]);

/** Query schemas of the subscription filters. */
export const WebhookFilters = propertiesOf(WEBHOOK_FILTERS)({
  enabled: Type.Boolean(),
  temporary: Type.Boolean({ description: 'true: only the listening CLIs’ temporary subscriptions (left out otherwise)' }),
});

/** GET /webhooks/listen query: the selectors of the temporary subscription (default `*`). */
export const WebhookListenQuery = Type.Object(
  {
    events: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'comma-separated event names or wildcards (`entry.*,release.created`); default every event (`*`)',
      }),
    ),
  },
  { additionalProperties: false },
);
/** Query schemas of the delivery filters. */
export const DeliveryFilters = propertiesOf(DELIVERY_FILTERS)({
  status: StringEnum(DELIVERY_STATUSES),
  eventName: Type.String({ minLength: 1, maxLength: 200, description: 'exact event name (webhook.test for test deliveries)' }),
  since: Type.String({
    format: 'date-time',
    pattern: YEAR_PATTERN,
    description: 'RFC 3339: deliveries created at or after this time',
  }),
  until: Type.String({
    format: 'date-time',
    pattern: YEAR_PATTERN,
    description: 'RFC 3339: deliveries created before this time',
  }),
});

/** The windows of GET /webhooks/:id/stats, and their length. */
export const STATS_WINDOWS = { '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

/** The buckets of each window's series: the last day by the hour, the last week by the day (docs/webhooks.md, "Delivery statistics"). */
export const STATS_BUCKETS = {
  '24h': { bucket: 'hour', bucketMs: 3_600_000 },
  '7d': { bucket: 'day', bucketMs: 86_400_000 },
} as const satisfies Record<StatsWindow, { bucket: string; bucketMs: number }>;

/** How the statistics' percentiles are rounded (the hourly rollup's duration buckets, docs/webhooks.md "Delivery statistics"). */
const BUCKETED = 'ms, rounded down to a bucket: exact below 32 ms, at most 6.25% below the exact value above';

/** One bucket of a subscription's statistics series. */
const StatsPoint = Type.Object(
  {
    start: DateTime,
    delivered: Type.Integer({ minimum: 0, description: 'deliveries created in the bucket that have succeeded' }),
    failed: Type.Integer({ minimum: 0, description: 'deliveries created in the bucket that failed or were dead-lettered' }),
    successRatio: Nullable(
      Type.Number({ minimum: 0, maximum: 1, description: 'delivered / (delivered + failed); null when none is finished' }),
    ),
    p50DurationMs: Nullable(Type.Integer({ description: `median duration of the attempts made in the bucket (${BUCKETED})` })),
    p99DurationMs: Nullable(
      Type.Integer({ description: `99th percentile duration of the attempts made in the bucket (${BUCKETED})` }),
    ),
  },
  { additionalProperties: false },
);

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
    since: Type.String({
      format: 'date-time',
      pattern: YEAR_PATTERN,
      description: 'start of the window: a whole hour (UTC), 23 (24h) or 167 (7d) hours before the current one',
    }),
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
        p50DurationMs: Nullable(Type.Integer({ description: BUCKETED })),
        p95DurationMs: Nullable(Type.Integer({ description: BUCKETED })),
        p99DurationMs: Nullable(Type.Integer({ description: BUCKETED })),
      },
      { additionalProperties: false, description: 'attempts made in the window' },
    ),
    lastSuccessAt: Nullable(DateTime),
    lastFailureAt: Nullable(DateTime),
    throttling: Type.Object(
      {
        pausedUntil: Nullable(
          Type.String({
            format: 'date-time',
            pattern: YEAR_PATTERN,
            description: 'the subscription is paused until then (null: not paused now)',
          }),
        ),
        pauses: Type.Integer({
          minimum: 0,
          description: 'attempts in the window the receiver answered 429 or 503 with Retry-After (each paused the subscription)',
        }),
        pausedSeconds: Type.Number({
          minimum: 0,
          description: 'the pauses those answers asked for, added up (capped as docs/webhooks.md says)',
        }),
      },
      { additionalProperties: false, description: 'throttling the receiver asked for (docs/webhooks.md, "Throttling")' },
    ),
    series: Type.Object(
      {
        bucket: StringEnum(['hour', 'day'], { description: '24h: 24 hourly buckets; 7d: 7 daily buckets' }),
        points: Type.Array(StatsPoint, {
          description: 'the window cut into equal buckets, oldest first: bucket i starts at `since` + i buckets',
        }),
      },
      { additionalProperties: false, description: 'the window over time' },
    ),
    disablesAt: Nullable(
      Type.String({
        format: 'date-time',
        pattern: YEAR_PATTERN,
        description:
          'when an enabled, failing subscription (failingSince set) is disabled if every attempt keeps failing: failingSince + WEBHOOK_DISABLE_AFTER_HOURS (at the health sweep after it); null otherwise',
      }),
    ),
    filtered: Type.Integer({
      minimum: 0,
      description:
        'events the subscription selected by name that its filter kept back (no delivery), counted by the hour: the window’s first hour is counted whole',
    }),
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

/**
 * The statuses of a delivery that has not arrived (docs/webhooks.md, "Finding what did not arrive"): `pending`
 * (not attempted yet, or waiting its turn), `failed` (its last attempt failed; retried or stopped), `dead_letter`.
 */
export const UNDELIVERED_STATUSES = [
  'pending',
  'failed',
  'dead_letter',
] as const satisfies readonly (typeof DELIVERY_STATUSES)[number][];

/** Query schemas of the organization-wide delivery search (GET /webhook-deliveries): the delivery filters and a subscription. */
export const DeliverySearchFilters = {
  ...DeliveryFilters,
  subscriptionId: Type.String({ format: 'uuid', description: 'one subscription of the organization (another’s: 404)' }),
};

/** GET /webhook-deliveries/summary query: the search's filters but the status. */
export const DeliverySummaryQuery = Type.Object(
  {
    subscriptionId: Type.Optional(DeliverySearchFilters.subscriptionId),
    eventName: Type.Optional(DeliveryFilters.eventName),
    since: Type.Optional(DeliveryFilters.since),
    until: Type.Optional(DeliveryFilters.until),
  },
  { additionalProperties: false },
);

const undeliveredCounts = {
  total: Type.Integer({ minimum: 0, description: 'pending + failed + dead_letter' }),
  ...Object.fromEntries(UNDELIVERED_STATUSES.map((s) => [s, Type.Integer({ minimum: 0 })])),
  oldestCreatedAt: Nullable(
    Type.String({ format: 'date-time', pattern: YEAR_PATTERN, description: 'when the oldest of them was created' }),
  ),
};

/** GET /webhook-deliveries/summary: the organization's deliveries that have not arrived, in all and by subscription. */
export const DeliverySummary = Type.Object(
  {
    since: Nullable(DateTime),
    until: Nullable(DateTime),
    undelivered: Type.Object(undeliveredCounts, { additionalProperties: false }),
    subscriptions: Type.Array(Type.Object({ subscriptionId: Uuid, ...undeliveredCounts }, { additionalProperties: false }), {
      description: 'each subscription with an undelivered delivery, most undelivered first',
    }),
  },
  {
    additionalProperties: false,
    description:
      'Undelivered deliveries (pending, failed, dead_letter) of the organization’s live subscriptions, test deliveries excluded',
  },
);
