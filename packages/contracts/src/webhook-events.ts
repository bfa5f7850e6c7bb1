import type { EventType } from './event-catalogue.ts';

// The body a subscriber receives for each event name (the envelope of docs/webhooks.md, "What a
// delivery looks like", with that name's payload schema from the event catalogue), as JSON
// Schema: the gateway's OpenAPI document lists one webhook per public name with it
// (services/gateway/src/http/openapi.ts, the `webhooks` section of docs/openapi.json).

type Schema = Record<string, unknown>;

/**
 * The keywords the catalogue's schemas may use: those that mean the same in JSON Schema draft-07
 * (the published files under docs/events/schemas and the AsyncAPI document declare it) and draft
 * 2020-12 (the dialect of OpenAPI 3.1 and of GET /webhooks/event-types). A keyword outside it
 * (`definitions`, `dependencies`, tuple `items`, `$defs`, `prefixItems`, …) would need converting.
 */
export const DRAFT_NEUTRAL_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'enum',
  'const',
  'format',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'multipleOf',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'default',
  'examples',
]);

/** Where a schema steps outside DRAFT_NEUTRAL_KEYWORDS, as `<JSON pointer>: <keyword>` (empty when it does not). */
export function draftSpecificKeywords(schema: unknown, at = ''): string[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const problems: string[] = [];
  for (const [keyword, value] of Object.entries(schema as Schema)) {
    const here = `${at}/${keyword}`;
    if (!DRAFT_NEUTRAL_KEYWORDS.has(keyword)) problems.push(`${at || '/'}: ${keyword}`);
    else if (keyword === 'properties' && value && typeof value === 'object')
      for (const [name, sub] of Object.entries(value as Schema)) problems.push(...draftSpecificKeywords(sub, `${here}/${name}`));
    else if (keyword === 'items' && Array.isArray(value)) problems.push(`${at || '/'}: items (a tuple)`);
    else if (['items', 'additionalProperties', 'not'].includes(keyword)) problems.push(...draftSpecificKeywords(value, here));
    else if (['anyOf', 'oneOf', 'allOf'].includes(keyword) && Array.isArray(value))
      value.forEach((sub, i) => problems.push(...draftSpecificKeywords(sub, `${here}/${i}`)));
  }
  return problems;
}

const uuid = { type: 'string', format: 'uuid' };

/**
 * The JSON Schema of the body a subscriber receives for one event: the envelope (WebhookEnvelope of
 * events.ts) with `eventName` fixed to the name and `payload` its catalogue schema. Keywords draft-07
 * and 2020-12 share only (DRAFT_NEUTRAL_KEYWORDS).
 */
export function webhookEventSchema(
  e: Pick<EventType, 'name' | 'entityType' | 'emitted' | 'description' | 'payloadSchema'>,
): Schema {
  return {
    type: 'object',
    description: `The body of a \`${e.name}\` delivery.`,
    additionalProperties: false,
    required: ['id', 'eventName', 'schemaVersion', 'entityType', 'entityId', 'occurredAt', 'actorUserId', 'payload'],
    properties: {
      id: { ...uuid, description: 'the delivery id; the same on every retry of this delivery (X-Service-Delivery-Id)' },
      eventName: { type: 'string', const: e.name },
      schemaVersion: { type: 'integer', const: 1 },
      entityType: e.emitted
        ? { type: 'string', const: e.entityType, description: 'what changed' }
        : { type: 'string', description: 'what changed (not fixed yet: nothing emits this event)' },
      entityId: { type: 'string', description: 'the id of what changed' },
      occurredAt: { type: 'string', format: 'date-time', description: 'when the change committed' },
      actorUserId: { type: ['string', 'null'], format: 'uuid', description: 'who made it; null for system actions' },
      payload: e.payloadSchema,
    },
  };
}
