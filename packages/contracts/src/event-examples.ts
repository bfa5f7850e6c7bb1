import { randomUUID } from 'node:crypto';
import { EVENT_CATALOGUE, eventTypeNamed, type CatalogueEntry } from './event-catalogue.ts';
import type { WebhookEnvelope } from './events.ts';

// A realistic example of every event of the catalogue: what POST /webhooks/:id/test sends for the name
// asked for (with fresh ids and times, freshEventExample) and what `cluster trigger <event>` fires
// (docs/webhooks.md, "Testing a receiver"). Each example is built from the event's payload schema, with
// the realistic values below by field name and the few per event that a field's name cannot tell
// (EXAMPLE_PAYLOADS); packages/contracts/src/event-examples.test.ts validates every one against its
// schema, so an example cannot drift from its event.

type Schema = Record<string, unknown>;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The time every example is stamped with (freshEventExample replaces it by now). */
export const EXAMPLE_TIME = '2026-11-24T13:05:00.000Z';
const EXAMPLE_DATE = '2026-11-24';

/** A stable placeholder UUID per role (v4-shaped), so the examples are the same from one run to the next. */
export function exampleId(role: string): string {
  let h = 2166136261;
  const hex: string[] = [];
  for (let round = 0; hex.join('').length < 32; round++) {
    for (const ch of `${role}:${round}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    hex.push(h.toString(16).padStart(8, '0'));
  }
  const s = hex.join('').slice(0, 32);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-8${s.slice(17, 20)}-${s.slice(20, 32)}`;
}

/** The organization every example belongs to (freshEventExample replaces it by the caller's). */
export const EXAMPLE_ORGANIZATION_ID = exampleId('organization');
/** The user who made every example change. */
export const EXAMPLE_ACTOR_ID = exampleId('actor');

/** Realistic values by field name, for any event that has the field. */
const BY_FIELD: Record<string, Json> = {
  organizationId: EXAMPLE_ORGANIZATION_ID,
  actorId: EXAMPLE_ACTOR_ID,
  createdByUserId: EXAMPLE_ACTOR_ID,
  approverUserId: EXAMPLE_ACTOR_ID,
  rejecterUserId: EXAMPLE_ACTOR_ID,
  unlockedByUserId: EXAMPLE_ACTOR_ID,
  authorId: EXAMPLE_ACTOR_ID,
  title: 'CSV export times out for projects with 10k entries',
  body: 'Reproduced on staging: the export stops after 30 s. Raising the worker timeout as a stopgap.',
  email: 'grace.hopper@example.com',
  prefix: 'fbk_3kQ9',
  destinationUrl: 'https://hooks.example.com/feedback',
  eventNames: ['entry.created', 'entry.status_changed'],
  description: 'production receiver',
  changedFields: ['title', 'priority'],
  reason: 'The hours belong to the previous sprint; please book them there.',
  hours: '2.50',
  minutes: 150,
  workDate: EXAMPLE_DATE,
  provider: 'github',
  repository: 'acme/storefront',
  externalType: 'repository',
  externalId: 'acme/storefront',
  alignEntityType: 'project',
  sha: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  mergeCommitSha: '1f7a7a472abf3dd9643fd615f6da379c4acb3e3a',
  url: 'https://github.com/acme/storefront/pull/42',
  pullRequestNumber: 42,
  entryNumber: 17,
  version: '2.4.0',
  committedCost: '1200.00',
  clientId: 'acme-gmbh',
  consecutiveFailures: 10,
  roleOverride: 'manager',
  headSha: '9fceb02d0ae598e95dc970b74767f19372d61af8',
  conclusion: 'success',
};

/** What a field's name cannot tell: values for one event (merged over the generated payload). */
const EXAMPLE_PAYLOADS: Record<string, Record<string, Json>> = {
  'entry.status_changed': { status: 'in_progress', previousStatus: 'open', newStatus: 'in_progress' },
  'entry.assigned': { previousAssignedToId: null },
  'entry.commented': { isInternal: null },
  'cost.approved': { previousCostApprovalStatus: 'pending' },
  'cost.rejected': { previousCostApprovalStatus: 'pending', committedCost: null },
  'release.created': { name: 'Autumn release' },
  'release.status_changed': {
    name: 'Autumn release',
    status: 'in_progress',
    previousStatus: 'planning',
    newStatus: 'in_progress',
  },
  'release.released': { name: 'Autumn release' },
  'api_key.created': { scope: 'organization', scopedProjectId: null },
  'user.invited': { name: 'Grace Hopper' },
  'user.linked': { name: 'Grace Hopper', externalType: 'user', externalId: 'U024BE7LH' },
  'user.updated': { name: 'Grace Hopper', changedFields: ['name'] },
  'integration_link.updated': { changedFields: ['alignEntityId'] },
  'project.updated': { changedFields: ['name'] },
  'commit.linked': {
    pullRequestNumber: null,
    url: 'https://github.com/acme/storefront/commit/9fceb02d0ae598e95dc970b74767f19372d61af8',
  },
  'ci.run.attributed': { name: 'ci / test' },
  'project_member.updated': { changedFields: ['roleOverride'] },
  'wiki_page.created': { title: 'Release checklist' },
  'wiki_page.updated': { title: 'Release checklist', changedFields: ['content'] },
  'wiki_page.deleted': { title: 'Release checklist' },
  'time.logged': { userId: EXAMPLE_ACTOR_ID },
  'time.updated': { userId: EXAMPLE_ACTOR_ID, changedFields: ['hours', 'minutes'] },
  'time.submitted': { userId: EXAMPLE_ACTOR_ID, status: 'submitted' },
  'time.approved': { userId: EXAMPLE_ACTOR_ID, status: 'approved' },
  'time.rejected': { userId: EXAMPLE_ACTOR_ID, status: 'rejected' },
  'time.unlocked': { userId: EXAMPLE_ACTOR_ID, status: 'draft' },
  'webhook.subscription.disabled': { enabled: false, disabledReason: 'failing', consecutiveFailures: 42 },
  'webhook.test': { test: true },
};

/** The id an example gives a field, by the field's name: the same entity has the same id everywhere. */
const idFor = (field: string) => (field in BY_FIELD ? BY_FIELD[field] : exampleId(field.replace(/Id$/, '') || field));

/** A value of `schema` for the field `field`: BY_FIELD's, else the schema's first choice. */
function valueOf(schema: Schema, field: string): Json {
  if ('const' in schema) return schema.const as Json;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const type = types.find((t) => t !== 'null') ?? 'null';
  if (Array.isArray(schema.enum)) {
    const known = BY_FIELD[field];
    return (schema.enum as Json[]).includes(known) ? known : ((schema.enum as Json[]).find((v) => v !== null) ?? null);
  }
  if (field in BY_FIELD && type !== 'object') return BY_FIELD[field];
  switch (type) {
    case 'object':
      return objectOf(schema);
    case 'array':
      return [valueOf((schema.items as Schema | undefined) ?? {}, field.replace(/s$/, ''))];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(1, schema.minimum) : 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return idFor(field);
      if (schema.format === 'date-time') return EXAMPLE_TIME;
      if (schema.format === 'date') return EXAMPLE_DATE;
      if (schema.format === 'uri') return `https://example.com/${field}`;
      if (/Id$/.test(field)) return idFor(field);
      if (field === 'name') return 'Storefront relaunch';
      if (/status$/i.test(field)) return 'open';
      return `example ${field}`;
    default:
      return null;
  }
}

function objectOf(schema: Schema): { [key: string]: Json } {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  return Object.fromEntries(Object.entries(properties).map(([field, sub]) => [field, valueOf(sub, field)]));
}

/** The payload field holding the envelope's entityId, where it is not `<entityType in camelCase>Id`. */
const ENTITY_ID_FIELD: Record<string, string> = { webhook_subscription: 'subscriptionId', project_member: 'memberId' };

/** The id of the envelope's entity, from the payload (`entryId` for an entry, …), else a placeholder. */
function entityIdOf(entry: CatalogueEntry, payload: { [key: string]: Json }): string {
  const camel = ENTITY_ID_FIELD[entry.entityType] ?? `${entry.entityType.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}Id`;
  const own = payload[camel] ?? (entry.entityType === 'organization' ? payload.organizationId : undefined);
  return typeof own === 'string' ? own : exampleId(entry.entityType);
}

/**
 * The example of one event: the body a subscriber receives (the envelope, with the payload its
 * schema describes), with placeholder ids and EXAMPLE_TIME. Undefined for a name outside the catalogue.
 */
export function eventExample(name: string): WebhookEnvelope | undefined {
  const entry = eventTypeNamed(name);
  if (!entry) return undefined;
  const payload = { ...objectOf(entry.payloadSchema), ...(EXAMPLE_PAYLOADS[name] ?? {}) };
  return {
    id: exampleId(`delivery:${name}`),
    eventName: name,
    schemaVersion: 1,
    entityType: entry.entityType,
    entityId: entityIdOf(entry, payload),
    occurredAt: EXAMPLE_TIME,
    actorUserId: EXAMPLE_ACTOR_ID,
    payload,
  };
}

/** Every event's example, in the catalogue's order (its internal names included). */
export const EVENT_EXAMPLES: ReadonlyMap<string, WebhookEnvelope> = new Map(
  EVENT_CATALOGUE.map((e) => [e.name, eventExample(e.name) as WebhookEnvelope]),
);

/** What makes an example the caller's own. */
export interface FreshExampleContext {
  /** The delivery id (the envelope's `id`). */
  deliveryId: string;
  /** The caller's organization: every `organizationId` of the example. */
  organizationId: string;
  /** Who asked (`actorUserId`, and the example's acting user), or null. */
  actorUserId: string | null;
  /** When (every timestamp of the example; default now). */
  now?: Date;
  /** Fields to set in the payload after the rest (a test call's `subscriptionId`). */
  payload?: Record<string, Json>;
}

/**
 * An example with fresh ids and times: each placeholder UUID becomes a new random one (the same
 * placeholder the same new id, so `entityId` stays the payload's `entryId`), the organization and the
 * acting user become the caller's, every date-time and date becomes `now`.
 */
export function freshEventExample(name: string, ctx: FreshExampleContext): WebhookEnvelope | undefined {
  const example = eventExample(name);
  if (!example) return undefined;
  const now = ctx.now ?? new Date();
  const time = now.toISOString();
  const ids = new Map<string, string | null>([
    [EXAMPLE_ORGANIZATION_ID, ctx.organizationId],
    [EXAMPLE_ACTOR_ID, ctx.actorUserId],
  ]);
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/;
  const fresh = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(fresh);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fresh(v)]));
    if (value === EXAMPLE_TIME) return time;
    if (value === EXAMPLE_DATE) return time.slice(0, 10);
    if (typeof value === 'string' && uuid.test(value)) {
      if (!ids.has(value)) ids.set(value, randomUUID());
      return ids.get(value) ?? null;
    }
    return value;
  };
  const payload = { ...(fresh(example.payload as Json) as Record<string, Json>), ...(ctx.payload ?? {}) };
  return {
    ...example,
    id: ctx.deliveryId,
    entityId: fresh(example.entityId) as string,
    occurredAt: time,
    actorUserId: ctx.actorUserId,
    payload,
  };
}
