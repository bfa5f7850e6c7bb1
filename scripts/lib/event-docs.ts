// The parts of docs/events.md and docs/asyncapi.yaml, and the per-type schemas under
// docs/events/schemas, written from the event catalogue (@cluster/contracts, event-catalogue.ts):
// `npm run event-docs` writes them, and test/event-docs.test.ts checks that the committed files are
// what this would write (test/event-schemas.test.ts: that no published schema broke).
import { isMap, isScalar, isSeq, parseDocument, visit, type Document, type Node } from 'yaml';
import {
  EVENT_CATALOGUE,
  EVENT_GROUPS,
  EVENT_SCHEMA_VERSION,
  NAMED_PAYLOAD_BASES,
  cloudEventType,
  eventDataSchema,
  eventSchemaFile,
  type CatalogueEntry,
} from '@cluster/contracts';

type Schema = Record<string, unknown>;

export const BEGIN =
  '<!-- BEGIN generated from the event catalogue (npm run event-docs); edit packages/contracts/src/event-catalogue.ts -->';
export const END = '<!-- END generated -->';

/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

/** A property's type in words: `uuid`, `string|null`, `` `a`|`b` ``, `string[]`, … */
export function typeOf(schema: Schema): string {
  const types = ([] as string[]).concat((schema.type as string | string[] | undefined) ?? []);
  const nullable = types.includes('null');
  const suffix = nullable ? '|null' : '';
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v) => v !== null);
    return values.length <= 5
      ? `${values.map((v) => `\`${String(v)}\``).join('|')}${suffix}`
      : `string (${values.length} values)${suffix}`;
  }
  if (schema.format === 'uuid') return `uuid${suffix}`;
  if (schema.format === 'date-time') return `date-time${suffix}`;
  if (schema.format === 'date') return `date (YYYY-MM-DD)${suffix}`;
  if (schema.format === 'uri') return `URL${suffix}`;
  const base = types.find((t) => t !== 'null');
  if (base === 'array') {
    const items = (schema.items ?? {}) as Schema;
    if (items.type === 'object') return `[{${Object.keys(items.properties ?? {}).join(', ')}}]${suffix}`;
    return `${typeOf(items)}[]${suffix}`;
  }
  return `${base ?? 'any'}${suffix}`;
}

/** The payload column: a named base (entry base, …) when the payload has all of its fields, then the rest. */
export function payloadWords(schema: Schema): string {
  const props = { ...((schema.properties ?? {}) as Record<string, Schema>) };
  delete props.occurredAt;
  const parts: string[] = [];
  for (const base of NAMED_PAYLOAD_BASES) {
    const fields = Object.keys(base.fields);
    if (fields.every((f) => f in props)) {
      parts.push(`**${base.name}**`);
      fields.forEach((f) => delete props[f]);
    }
  }
  parts.push(...Object.entries(props).map(([name, s]) => `\`${name}\` (${typeOf(s)})`));
  return parts.join(', ');
}

/** The generated part of docs/events.md: one section per group that emits, then the reserved names. */
export function renderEventsSection(catalogue: readonly CatalogueEntry[] = EVENT_CATALOGUE): string {
  const out: string[] = [BEGIN, ''];
  for (const group of EVENT_GROUPS) {
    const emitted = catalogue.filter((e) => e.group === group.id && e.emitted);
    if (!emitted.length) continue;
    out.push(`## ${group.title}`, '');
    if (group.intro) out.push(group.intro, '');
    out.push(
      '| Event | entityType | Emitted when | Payload (besides `occurredAt`) | Notes | Public |',
      '|---|---|---|---|---|---|',
    );
    for (const e of emitted)
      out.push(
        `| \`${e.name}\` | ${e.entityType} | ${cell(e.description)} | ${cell(payloadWords(e.payloadSchema))} | ${cell(e.notes ?? '')} | ${e.internal ? 'internal' : 'yes'} |`,
      );
    out.push('');
  }
  out.push(
    '## Vocabulary names never emitted (yet)',
    '',
    'A subscription may list these names, because they are in `EVENT_NAMES`. Nothing in',
    'the cluster fires them today, so a subscription that lists only these receives',
    'nothing; the catalogue lists them with `emitted: false` and a payload schema that only',
    'promises `occurredAt`. The one exception is the test endpoint: `POST /webhooks/:id/test`',
    'with `{eventName}` sends a synthetic delivery (the `webhook.test` payload) under any name',
    'the subscription lists.',
    '',
  );
  for (const group of EVENT_GROUPS) {
    const reserved = catalogue.filter((e) => e.group === group.id && !e.emitted);
    if (reserved.length) out.push(`- ${group.title}: ${reserved.map((e) => `\`${e.name}\``).join(', ')}`);
  }
  const strays = catalogue.filter((e) => !e.emitted && !EVENT_GROUPS.some((g) => g.id === e.group));
  if (strays.length) out.push(`- Other: ${strays.map((e) => `\`${e.name}\``).join(', ')}`);
  out.push('', END);
  return out.join('\n');
}

/** docs/events.md with its generated part replaced (the prose before and after stays as written). */
export function renderEventsMarkdown(current: string): string {
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/events.md has no ${BEGIN} … ${END} section`);
  return current.slice(0, start) + renderEventsSection() + current.slice(end + END.length);
}

/** The events published on Kafka: every emitted one but `webhook.test`, which the delivery service sends directly. */
export function kafkaEvents(catalogue: readonly CatalogueEntry[] = EVENT_CATALOGUE): CatalogueEntry[] {
  return catalogue.filter((e) => e.emitted && e.name !== 'webhook.test');
}

/** Where the per-type schemas are published, relative to docs/. */
export const SCHEMA_DIR = 'events/schemas';

/**
 * The published JSON Schema of an event type's data at a version (docs/events/schemas/<type>.v<N>.json):
 * the catalogue's payload schema, with the `dataschema` URN as its `$id`. Draft-07 keywords only,
 * so the AsyncAPI parser and any validator read it.
 */
export function eventSchemaDocument(e: CatalogueEntry, version = EVENT_SCHEMA_VERSION): Schema {
  const { description, ...schema } = e.payloadSchema;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: eventDataSchema(e.name, version),
    title: `${cloudEventType(e.name, version)} (version ${version})`,
    description: [
      `The data (the Kafka message value) of a CloudEvent of type \`${cloudEventType(e.name, version)}\`${e.internal ? ' (internal)' : ''}: ${e.description}`,
      ...(typeof description === 'string' ? [description] : []),
    ].join(' '),
    ...schema,
  };
}

/** Every published schema file now, by name under SCHEMA_DIR, as its text. */
export function renderEventSchemas(catalogue: readonly CatalogueEntry[] = EVENT_CATALOGUE): Map<string, string> {
  return new Map(
    kafkaEvents(catalogue).map((e) => [eventSchemaFile(e.name), `${JSON.stringify(eventSchemaDocument(e), null, 2)}\n`]),
  );
}

// AsyncAPI: one message per event on the domain-event channel (`event.<name>`): a CloudEvent in binary
// mode, whose headers name its type, dataschema and entity type, and whose payload is the published
// schema of its data (a file under events/schemas).
const MESSAGE_PREFIX = 'event.';
/** The per-event payload schemas of the document before the schemas were published as files (dropped). */
const SCHEMA_PREFIX = 'payload.';

function messageOf(e: CatalogueEntry): Schema {
  return {
    name: cloudEventType(e.name),
    title: e.name,
    summary: e.description,
    ...(e.notes ? { description: e.notes } : {}),
    ...(e.internal ? { tags: [{ name: 'internal' }] } : {}),
    contentType: 'application/json',
    headers: {
      allOf: [
        { $ref: '#/components/schemas/CloudEventHeaders' },
        {
          type: 'object',
          properties: {
            ce_type: { const: cloudEventType(e.name) },
            ce_dataschema: { const: eventDataSchema(e.name) },
            ce_entitytype: { const: e.entityType },
          },
        },
      ],
    },
    payload: {
      schemaFormat: 'application/schema+json;version=draft-07',
      schema: { $ref: `${SCHEMA_DIR}/${eventSchemaFile(e.name)}` },
    },
  };
}

/** Writes a generated node's leaves (a property's schema, a $ref, a list of names) on one line, as the hand-written part does. */
function compact<N extends Node>(root: N): N {
  const leaf = (n: unknown): boolean => isScalar(n) || (isSeq(n) && n.items.every(isScalar));
  visit(root, {
    Seq(_key, n) {
      if (n.items.every(isScalar)) n.flow = true;
    },
    Map(_key, n) {
      if (n.items.every((p) => leaf(p.value))) n.flow = true;
    },
  });
  return root;
}

/** Removes every generated key of a map (a key with `prefix`). */
function dropGenerated(doc: Document, path: string[], prefix: string): void {
  const node = doc.getIn(path);
  if (!isMap(node)) throw new Error(`docs/asyncapi.yaml has no map at ${path.join('.')}`);
  node.items = node.items.filter((pair) => !String((pair.key as { value?: unknown }).value ?? pair.key).startsWith(prefix));
}

/** docs/asyncapi.yaml with its per-event messages written from the catalogue. */
export function renderAsyncApi(current: string): string {
  const doc = parseDocument(current);
  dropGenerated(doc, ['components', 'schemas'], SCHEMA_PREFIX);
  dropGenerated(doc, ['components', 'messages'], MESSAGE_PREFIX);
  dropGenerated(doc, ['channels', 'domainEvents', 'messages'], MESSAGE_PREFIX);
  const node = (value: unknown) => compact(doc.createNode(value));
  for (const e of kafkaEvents()) {
    doc.setIn(['components', 'messages', `${MESSAGE_PREFIX}${e.name}`], node(messageOf(e)));
    doc.setIn(
      ['channels', 'domainEvents', 'messages', `${MESSAGE_PREFIX}${e.name}`],
      node({ $ref: `#/components/messages/${MESSAGE_PREFIX}${e.name}` }),
    );
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
