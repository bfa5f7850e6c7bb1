// The document the API reference page (/api/v1/docs) renders: the published OpenAPI document
// (buildOpenApi of the operation table, what /api/v1/openapi.json serves and docs/openapi.json
// holds) with what only the page shows: the introduction (docs/reference-introduction.md) as
// `info.description`, code samples per operation (`x-codeSamples`: scripts/lib/code-samples.ts),
// the tags' display names and their groups in the menu (`x-tagGroups`). docs/openapi.json stays the
// contract the SDK and the API-evolution check read; the samples are presentation, derived at build
// time (scripts/lib/reference-page.mjs renders the page from this document).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi, routes } from '@cluster/gateway';
import type { Operation } from '@cluster/contracts';
import { operationTable, type OpenApiDocument } from '../../packages/client/scripts/generate.ts';
import { codeSamples, exampleOf, resolve, streamSamples, type SampleOperation, type Schema } from './code-samples.ts';

/** The menu's groups of tags, in order; every tag of the document is in exactly one (the build refuses otherwise). */
export const TAG_GROUPS: { name: string; tags: string[] }[] = [
  { name: 'Start here', tags: ['identity'] },
  { name: 'Projects and work', tags: ['projects', 'entries', 'comments', 'attachments', 'releases', 'wiki', 'members'] },
  { name: 'Time tracking', tags: ['time-entries'] },
  { name: 'Organization', tags: ['users', 'agreements', 'snapshots', 'audit', 'search', 'integration-links'] },
  { name: 'Webhooks', tags: ['webhooks', 'portal', 'webhook-events'] },
];

/** Where the page's introduction is written. */
export const INTRODUCTION = 'docs/reference-introduction.md';

const METHODS = ['get', 'post', 'patch', 'delete'] as const;

interface OpenApiOperationObject {
  summary: string;
  tags: string[];
  requestBody?: { required?: boolean; content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: { 'application/json'?: { schema: Schema } } }>;
  'x-codeSamples'?: unknown;
}
interface Document {
  info: Record<string, unknown>;
  tags: { name: string; description: string; 'x-displayName'?: string }[];
  paths: Record<string, Partial<Record<(typeof METHODS)[number], OpenApiOperationObject>>>;
  components: { schemas: Record<string, Schema> };
  [key: string]: unknown;
}

const lowerCamel = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);
/** `time-entries` -> `Time entries`. */
const displayName = (tag: string) => (tag.charAt(0).toUpperCase() + tag.slice(1)).replace(/-/g, ' ');

/** What a success answers, as a variable name: `entry`, `timeEntry`; a list's item for a list. */
function resultName(schema: Schema | undefined, schemas: Record<string, Schema>): string {
  if (!schema) return 'result';
  const ref = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
  if (ref) return lowerCamel(ref);
  const items = ((resolve(schema, schemas).properties as Record<string, Schema> | undefined)?.data?.items ?? undefined) as
    Schema | undefined;
  return items ? resultName(items, schemas) : 'result';
}

/**
 * The page's document: `document` (buildOpenApi's) with the introduction, the samples of every
 * operation, display names and tag groups. `operations` gives what the OpenAPI document does not
 * say (which query parameters are required).
 */
export function referenceDocument(document: Record<string, unknown>, operations: readonly Operation[], introduction: string) {
  const doc = structuredClone(document) as unknown as Document;
  const schemas = doc.components.schemas;
  const sdk = new Map(operationTable(doc as unknown as OpenApiDocument).map((r) => [`${r.method} ${r.path}`, r]));
  for (const [oaPath, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const declared = operations.find(
        (o) => o.method.toLowerCase() === method && `/api/v1${o.path.replace(/:(\w+)/g, '{$1}')}` === oaPath,
      );
      // A stream has no SDK method (packages/client/scripts/generate.ts): its samples are its own.
      if (declared?.response.contentType === 'text/event-stream') {
        op['x-codeSamples'] = streamSamples({ path: oaPath });
        continue;
      }
      const row = sdk.get(`${method} ${oaPath}`);
      if (!declared || !row) throw new Error(`reference page: ${method} ${oaPath} is not in the operation table or the SDK's`);
      const query: Record<string, string> = {};
      const querySchema = (declared.query ?? {}) as Schema;
      for (const name of (querySchema.required ?? []) as string[])
        query[name] = String(exampleOf(((querySchema.properties ?? {}) as Record<string, Schema>)[name] ?? {}, schemas, name));
      if (row.paged) Object.assign(query, { page: '1', pageSize: '25' });
      const bodySchema = op.requestBody?.content['application/json'].schema;
      // A body left out when it may be (a POST whose fields are all optional: test, rotate-secret, approve).
      const body = bodySchema && op.requestBody?.required ? exampleOf(bodySchema, schemas) : undefined;
      const [status, success] = Object.entries(op.responses)[0];
      const sample: SampleOperation = {
        method,
        path: oaPath,
        body,
        query,
        status: Number(status),
        sdk: { namespace: row.namespace, name: row.name, paged: row.paged },
        resultName: resultName(success.content?.['application/json']?.schema, schemas),
      };
      op['x-codeSamples'] = codeSamples(sample);
    }
  }
  const tags = doc.tags.map((t) => t.name);
  const grouped = TAG_GROUPS.flatMap((g) => g.tags);
  const wrong = [...tags.filter((t) => grouped.filter((g) => g === t).length > 1), ...grouped.filter((g) => !tags.includes(g))];
  if (wrong.length) throw new Error(`reference page: tags in two of TAG_GROUPS, or grouped but unknown: ${wrong.join(', ')}`);
  // A tag no group names yet (a resource just added with `npm run new-resource`) is shown under "More".
  const ungrouped = tags.filter((t) => !grouped.includes(t));
  for (const tag of doc.tags) tag['x-displayName'] = displayName(tag.name);
  doc.info = { ...doc.info, title: 'Developer API v1', description: introduction };
  doc['x-tagGroups'] = [...TAG_GROUPS, ...(ungrouped.length ? [{ name: 'More', tags: ungrouped }] : [])];
  return doc as unknown as Record<string, unknown>;
}

/** The page's document from the sources under `root` (what scripts/lib/reference-page.mjs renders). */
export function pageDocument(root: string): Record<string, unknown> {
  const introduction = readFileSync(path.join(root, INTRODUCTION), 'utf8');
  return referenceDocument(buildOpenApi(routes), routes, introduction);
}
