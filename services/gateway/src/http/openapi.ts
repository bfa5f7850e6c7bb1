import type { TSchema } from '@sinclair/typebox';
import * as contracts from '@cluster/contracts';
import { ApiError, PUBLIC_EVENT_TYPES, webhookEventSchema, type EventType, type Operation } from '@cluster/contracts';
import { resourceOfParam } from './route.ts';

/** What each tag of the route table groups, for the document's `tags` (a tag without a line here fails the build of the document). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  identity: 'Who the key belongs to',
  projects: 'Projects of the organization',
  audit: 'The audit trail of every write',
  entries: 'Work items of a project: bugs, features, tasks',
  comments: 'Comments on entries',
  attachments: 'Files registered on entries',
  releases: 'Releases of a project and their signed evidence',
  'integration-links': 'Links between platform records and records of other systems',
  'time-entries': 'Time tracking, with submission and approval',
  users: 'Users of the organization and invitations',
  members: 'Project membership',
  wiki: 'Wiki pages of a project',
  agreements: 'Client agreements (signed outside the API)',
  snapshots: 'Report snapshots',
  search: 'Full-text search across resources',
  webhooks: 'Outbound webhook subscriptions and their deliveries',
  portal: 'The integrator portal: one-time links to its browser sessions, and who may embed it (docs/portal.md)',
  'webhook-events': 'What a subscription receives: one signed POST per event (docs/webhooks.md)',
};

/** Descriptions of path and query parameters by name; a path id is described by the resource before it. */
const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  page: 'Page number, from 1',
  pageSize: 'Items per page (at most 100)',
  from: 'Only items on or after this work date (YYYY-MM-DD, inclusive)',
  to: 'Only items on or before this work date (YYYY-MM-DD, inclusive)',
};

/** The headers of every delivery (docs/webhooks.md, "What a delivery looks like"). */
const DELIVERY_HEADERS: { name: string; required: boolean; description: string }[] = [
  { name: 'X-Service-Event', required: true, description: 'The event name' },
  { name: 'X-Service-Delivery-Id', required: true, description: "The delivery id (the body's `id`), the same on every retry" },
  { name: 'X-Service-Timestamp', required: true, description: 'Unix epoch seconds when this attempt was sent' },
  {
    name: 'X-Service-Signature',
    required: false,
    description: '`sha256=` + hex HMAC-SHA256 of the raw body, keyed with `hmacSecret`; not sent to an `ed25519` subscription',
  },
  { name: 'webhook-id', required: true, description: 'Standard Webhooks: the delivery id' },
  { name: 'webhook-timestamp', required: true, description: 'Standard Webhooks: the attempt time, Unix epoch seconds' },
  {
    name: 'webhook-signature',
    required: true,
    description: 'Standard Webhooks: `v1,` + base64 HMAC-SHA256 (or `v1a,` + base64 Ed25519) of `id.timestamp.body`',
  },
];

/** `entry.status_changed` -> `entryStatusChanged`: the operationId of an event's webhook. */
const eventOperationId = (name: string) => name.replace(/[._]([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/**
 * The document's `webhooks` (OpenAPI 3.1): one per name a subscription may list, in the catalogue's
 * order, whose request body is that event's envelope (webhookEventSchema of @cluster/contracts).
 */
export function webhookEvents(events: readonly EventType[] = PUBLIC_EVENT_TYPES): Record<string, unknown> {
  return Object.fromEntries(
    events.map((e) => [
      e.name,
      {
        post: {
          summary: e.name,
          description: [e.description, e.notes, e.emitted ? undefined : 'Reserved: nothing sends it yet but the test endpoint.']
            .filter(Boolean)
            .join(' '),
          tags: ['webhook-events'],
          operationId: eventOperationId(e.name),
          security: [],
          parameters: DELIVERY_HEADERS.map((h) => ({ $ref: `#/components/parameters/${h.name}` })),
          requestBody: { required: true, content: { 'application/json': { schema: webhookEventSchema(e) } } },
          responses: {
            '200': { description: 'Delivered: any 2xx answer within 5 seconds counts' },
            '410': { description: 'Gone: the attempt fails, is not retried, and the subscription is disabled' },
            default: { description: 'Any other answer, or none in time: the attempt fails and is retried' },
          },
        },
      },
    ]),
  );
}

/** "Id of the time entry" for `:id` in `/time-entries/:id`: named after the collection before it. */
function pathParameterDescription(path: string, name: string): string {
  const resource = resourceOfParam(path, name);
  return resource ? `Id of the ${resource.replace(/-/g, ' ')}` : `The ${name}`;
}

/**
 * The named schemas: every object schema @cluster/contracts exports, by its export name. A route
 * that uses one refers to it (`$ref`), so generated clients get the same type names as the code.
 */
export function namedSchemas(): Map<object, string> {
  const names = new Map<object, string>();
  for (const [name, value] of Object.entries(contracts)) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const schema = value as Record<string, unknown>;
    if (schema.type === 'object' && /^[A-Z]/.test(name) && !names.has(value)) names.set(value, name);
  }
  return names;
}

/**
 * The public OpenAPI 3.1 document, generated from the same route table that validates requests:
 * named schemas under `components`, one error schema for every error body, declared tags,
 * described parameters.
 */
export function buildOpenApi(routes: readonly Operation[]): Record<string, unknown> {
  const names = namedSchemas();
  const used = new Map<string, unknown>();
  /** A plain JSON copy of a schema in which every named schema below the top is a `$ref`. */
  const toJson = (schema: unknown, top = true): unknown => {
    if (Array.isArray(schema)) return schema.map((s) => toJson(s, false));
    if (!schema || typeof schema !== 'object') return schema;
    const name = names.get(schema);
    if (name && !top) {
      if (!used.has(name)) {
        used.set(name, null); // reserved first: a schema that refers to itself stops here
        used.set(name, toJson(schema, true));
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    return Object.fromEntries(Object.entries(schema).flatMap(([k, v]) => (v === undefined ? [] : [[k, toJson(v, false)]])));
  };
  const ref = (schema: TSchema | undefined) => (schema ? toJson({ schema }, true) : undefined) as { schema: unknown } | undefined;

  const paths: Record<string, Record<string, unknown>> = {};
  const errorResponse = (description: string) => ({ $ref: `#/components/responses/${description}` });
  const tags = new Set<string>();
  for (const r of routes) {
    tags.add(r.tag);
    const oaPath = `/api/v1${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`;
    const params: unknown[] = [...r.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      description: pathParameterDescription(r.path, name),
      schema: { type: 'string', format: 'uuid' },
    }));
    const requiredQuery = new Set(r.query?.required ?? []);
    for (const [name, schema] of Object.entries(r.query?.properties ?? {})) {
      const s = schema as { description?: string };
      params.push({
        name,
        in: 'query',
        required: requiredQuery.has(name),
        description: s.description ?? PARAMETER_DESCRIPTIONS[name] ?? `Only items whose \`${name}\` is this value`,
        schema: ref(schema)?.schema,
      });
    }
    if (r.method === 'POST') {
      params.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Makes a retried POST safe: the same key and body within 24 hours replays the first answer',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
    }
    const notes = [
      r.permission ? `Permission: \`${r.permission}\`.` : undefined,
      r.roles ? `Role of the key's creating user: ${r.roles.join(', ')}.` : undefined,
      r.orgKeyOnly ? 'Organization-scoped keys only (a project key gets 403 scope_violation).' : undefined,
    ]
      .filter(Boolean)
      .join(' ');
    (paths[oaPath] ??= {})[r.method.toLowerCase()] = {
      summary: r.summary,
      description: notes || undefined,
      tags: [r.tag],
      operationId: `${r.method.toLowerCase()}${r.path.replace(/[/:-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      parameters: params,
      requestBody: r.body
        ? {
            // A POST body without required fields may be left out (rotate-secret, test); others are required.
            required: r.method !== 'POST' || ((r.body as { required?: unknown[] }).required?.length ?? 0) > 0,
            content: { 'application/json': ref(r.body) },
          }
        : undefined,
      responses: {
        [r.response.status]: {
          description: r.response.description ?? 'OK',
          content: r.response.contentType
            ? { [r.response.contentType]: { schema: { type: 'string' } } }
            : r.response.schema
              ? { 'application/json': ref(r.response.schema) }
              : undefined,
        },
        400: errorResponse('BadRequest'),
        401: errorResponse('Unauthorized'),
        403: errorResponse('Forbidden'),
        404: errorResponse('NotFound'),
        ...(r.body ? { 415: errorResponse('UnsupportedMediaType') } : {}),
        429: errorResponse('TooManyRequests'),
      },
    };
  }
  const undeclared = [...tags].filter((t) => !TAG_DESCRIPTIONS[t]);
  if (undeclared.length) throw new Error(`OpenAPI: tags without a description in TAG_DESCRIPTIONS: ${undeclared.join(', ')}`);

  const apiError = toJson(ApiError, true);
  const errorContent = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Developer API',
      version: '1.0.0',
      description:
        'Public developer API v1: projects, entries, comments, attachments, releases and their signed evidence, time ' +
        'tracking, users, members, wiki, agreements, report snapshots, audit events, integration links, search and ' +
        'outbound webhooks. Authenticate with an API key (`Authorization: Bearer <key>` or `X-API-Key`). Every error ' +
        'answers `{reason, message, details?}`, except the 400 of unknown webhook event names, which answers ' +
        '`{error, invalid}` as the contract fixes.',
      contact: { name: 'API support', email: 'api@feedback.example.com' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This gateway' }],
    tags: [...tags, 'webhook-events'].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key as a bearer token' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key in its own header' },
      },
      parameters: Object.fromEntries(DELIVERY_HEADERS.map((h) => [h.name, { ...h, in: 'header', schema: { type: 'string' } }])),
      schemas: Object.fromEntries([...used, ['ApiError', apiError] as const].sort(([a], [b]) => a.localeCompare(b))),
      responses: {
        BadRequest: errorContent('validation_error (with every problem and its JSON pointer), or unknown_event_names'),
        Unauthorized: errorContent('missing_key, invalid_key or key_revoked'),
        Forbidden: errorContent('forbidden (naming the permission) or scope_violation'),
        NotFound: errorContent('not_found: no such resource, or another organization’s'),
        UnsupportedMediaType: errorContent('unsupported_media_type: a body declared as anything but application/json'),
        TooManyRequests: errorContent('rate_limit, with Retry-After and the X-RateLimit-* headers'),
      },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
    webhooks: webhookEvents(),
  };
}
