// The code samples of the API reference page (`x-codeSamples`, one per language, for every
// operation of the OpenAPI document): curl, the SDK (@cluster/client) and Python's standard
// library. Written from the document itself: its method and path, its request body's schema (an
// example built from the schema), its required query parameters and, for the SDK, the method the
// SDK generates for it (packages/client/scripts/generate.ts, operationTable). test/reference-document.test.ts
// holds every sample body to its schema; test/reference-samples.test.ts runs some against a cluster.

/** A JSON Schema as the OpenAPI document holds it (`$ref`s into `components.schemas`). */
export type Schema = Record<string, unknown>;

/** What a sample needs to know of one operation. */
export interface SampleOperation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** The OpenAPI path, `/api/v1/projects/{id}/entries`. */
  path: string;
  /** The example body, or undefined for none. */
  body?: unknown;
  /** Query parameters the sample sends (the required ones, and a page on a list). */
  query: Record<string, string>;
  /** The status of a success. */
  status: number;
  /** The SDK's method: `client.<namespace>.<name>(...)`; `paged` lists return an async iterator. */
  sdk: { namespace: string; name: string; paged: boolean };
  /** The name of what the call answers (`entry`), for the SDK sample's variable. */
  resultName: string;
}

/** One entry of `x-codeSamples` (Redoc shows `label` on the tab, highlights by `lang`). */
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** The environment every sample reads: the gateway's origin and an API key. */
export const ENV = { url: 'FEEDBACK_API_URL', key: 'FEEDBACK_API_KEY' } as const;

/** An id that stands for one the reader fills in (bodies cannot read variables in every language). */
export const EXAMPLE_UUID = '8a1c3f0e-6b7d-4e2a-9c5f-1d2e3f4a5b6c';

const singular = (s: string) => (s.endsWith('ies') ? `${s.slice(0, -3)}y` : s.replace(/s$/, ''));

/**
 * The environment variable a sample reads a path parameter from: `{id}` after `/time-entries` is
 * `TIME_ENTRY_ID`, `{memberId}` is `MEMBER_ID`.
 */
export function pathVariable(path: string, param: string): string {
  const segments = path.split('/');
  const at = segments.indexOf(`{${param}}`);
  const stem = param === 'id' ? singular(segments[at - 1] ?? 'resource') : param.replace(/Id$/, '');
  return `${stem
    .replace(/-/g, '_')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toUpperCase()}_ID`;
}

/** The path parameters of an OpenAPI path, in order. */
export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

// ---------------------------------------------------------------------------------------------
// Examples from schemas

/** Values for properties by name, where a generic value would read oddly or break a rule the schema cannot state. */
const BY_NAME: Record<string, unknown> = {
  name: 'Website relaunch',
  frameAncestor: 'https://app.example.com',
  title: 'Export the monthly report as CSV',
  description: 'The finance team needs the report in their spreadsheet.',
  content: 'Reproduced on staging; fix in progress.',
  reason: 'The hours do not match the ticket',
  note: 'Checked against the sprint board',
  fileName: 'screenshot.png',
  fileSize: '48213',
  fileType: 'image/png',
  objectPath: 'uploads/2026/06/screenshot.png',
  eventNames: ['entry.created', 'entry.status_changed'],
  provider: 'jira',
  externalSystem: 'jira',
  externalType: 'issue',
  externalId: 'PROJ-1347',
  alignEntityType: 'entry',
  minutes: 90,
  workDate: '2026-06-01',
  roleOverride: 'tech_lead',
  q: 'invoice',
};

/** Values by string format. */
const BY_FORMAT: Record<string, string> = {
  uuid: EXAMPLE_UUID,
  date: '2026-06-01',
  'date-time': '2026-06-01T09:00:00Z',
  'date-or-date-time': '2026-06-01',
  email: 'dev@example.com',
  uri: 'https://hooks.example.com/feedback',
};

/** Properties an example of an all-optional body (an update) shows, the first one the schema has. */
const PREFERRED = ['name', 'title', 'status', 'enabled', 'content', 'roleOverride', 'alignEntityType', 'minutes'];

/** Resolves a `$ref` into `components.schemas`. */
export function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? resolve(schemas[ref.split('/').pop() ?? ''] ?? {}, schemas) : schema;
}

/**
 * An example value of a schema: the required properties of an object (or, when none is required,
 * one telling property), the first value of an enum, a value by name or format, else a plain value.
 */
export function exampleOf(schema: Schema, schemas: Record<string, Schema>, name?: string): unknown {
  const s = resolve(schema, schemas);
  if (name !== undefined && name in BY_NAME) return BY_NAME[name];
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) {
    const branch = branches.find((b) => resolve(b, schemas).type !== 'null') ?? branches[0];
    return exampleOf(branch, schemas, name);
  }
  if (s.default !== undefined) return s.default;
  const type: unknown = Array.isArray(s.type) ? (s.type as unknown[]).find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      const required = (s.required ?? []) as string[];
      const keys = required.length ? required : PREFERRED.filter((k) => k in properties).slice(0, 1);
      return Object.fromEntries(keys.map((k) => [k, exampleOf(properties[k] ?? {}, schemas, k)]));
    }
    case 'array':
      return Array.from({ length: Math.max(1, Number(s.minItems ?? 1)) }, () =>
        exampleOf((s.items ?? {}) as Schema, schemas, name === undefined ? undefined : singular(name)),
      );
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string':
      return typeof s.format === 'string' && BY_FORMAT[s.format] ? BY_FORMAT[s.format] : 'example';
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Literals in each language

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JavaScript literal of a JSON value, two spaces per level, single quotes (Prettier's style). */
export function jsLiteral(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) return `[${value.map((v) => jsLiteral(v, inner)).join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${jsLiteral(v, inner)},`).join('\n')}\n${indent}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (!entries.length) return '{}';
    const key = (k: string) => (IDENTIFIER.test(k) ? k : `'${k}'`);
    return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${jsLiteral(v, inner)},`).join('\n')}\n${indent}}`;
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(value);
}

/** A Python literal of a JSON value (dicts, lists, True/False/None), four spaces per level. */
export function pythonLiteral(value: unknown, indent = ''): string {
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null))
      return `[${value.map((v) => pythonLiteral(v, inner)).join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${pythonLiteral(v, inner)},`).join('\n')}\n${indent}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (!entries.length) return '{}';
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${pythonLiteral(v, inner)},`).join('\n')}\n${indent}}`;
  }
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return JSON.stringify(value); // a JSON string or number is a Python literal too
}

// ---------------------------------------------------------------------------------------------
// The samples

const queryString = (query: Record<string, string>) => {
  const text = new URLSearchParams(query).toString();
  return text ? `?${text}` : '';
};

/** curl: the URL from the environment, the key as a bearer token, a fresh Idempotency-Key on a POST. */
function curlSample(op: SampleOperation): string {
  const url = `$${ENV.url}${op.path.replace(/\{(\w+)\}/g, (_, p: string) => `$${pathVariable(op.path, p)}`)}${queryString(op.query)}`;
  const lines = [`curl ${op.method === 'get' ? '' : `-X ${op.method.toUpperCase()} `}"${url}"`];
  lines.push(`-H "Authorization: Bearer $${ENV.key}"`);
  if (op.method === 'post') lines.push('-H "Idempotency-Key: $(uuidgen)"');
  if (op.body !== undefined) {
    lines.push('-H "Content-Type: application/json"');
    lines.push(`-d '${JSON.stringify(op.body, null, 2).replace(/'/g, "'\\''")}'`);
  }
  return lines.join(' \\\n  ');
}

/** The SDK: a client from the environment, then the operation's method (a list is iterated to its end). */
function sdkSample(op: SampleOperation): string {
  const args = pathParams(op.path).map((p) => `process.env.${pathVariable(op.path, p)}`);
  const query = Object.fromEntries(Object.entries(op.query).filter(([k]) => k !== 'page' && k !== 'pageSize'));
  if (Object.keys(query).length) args.push(jsLiteral(query));
  if (op.body !== undefined) args.push(jsLiteral(op.body));
  const call = `client.${op.sdk.namespace}.${op.sdk.name}(${args.join(', ')})`;
  const lines = [
    "import { createClient } from '@cluster/client';",
    '',
    `const client = createClient({ baseUrl: process.env.${ENV.url}, apiKey: process.env.${ENV.key} });`,
    '',
  ];
  if (op.sdk.paged) {
    lines.push(`for await (const ${op.resultName} of ${call}) {`, `  console.log(${op.resultName});`, '}');
  } else if (op.status === 204) {
    lines.push(`await ${call};`);
  } else {
    lines.push(`const ${op.resultName} = await ${call};`, `console.log(${op.resultName});`);
  }
  return lines.join('\n');
}

/** Python with the standard library only (urllib): the request, then the status and the parsed answer. */
function pythonSample(op: SampleOperation): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, p: string) => `{os.environ['${pathVariable(op.path, p)}']}`);
  const headers = [`"Authorization": f"Bearer {os.environ['${ENV.key}']}",`];
  if (op.body !== undefined) headers.push('"Content-Type": "application/json",');
  if (op.method === 'post') headers.push('"Idempotency-Key": str(uuid.uuid4()),');
  const usesJson = op.body !== undefined || op.status !== 204;
  const imports = [
    ...(usesJson ? ['import json'] : []),
    'import os',
    'import urllib.request',
    ...(op.method === 'post' ? ['import uuid'] : []),
  ];
  const lines = [
    ...imports,
    '',
    'request = urllib.request.Request(',
    `    f"{os.environ['${ENV.url}']}${path}${queryString(op.query)}",`,
    `    method="${op.method.toUpperCase()}",`,
    '    headers={',
    ...headers.map((h) => `        ${h}`),
    '    },',
  ];
  if (op.body !== undefined) lines.push(`    data=json.dumps(${pythonLiteral(op.body, '    ')}).encode(),`);
  lines.push(')', 'with urllib.request.urlopen(request) as response:');
  lines.push(op.status === 204 ? '    print(response.status)' : '    print(response.status, json.load(response))');
  return lines.join('\n');
}

/** The labels of the three samples, in the order of their tabs. */
export const SAMPLE_LABELS = { curl: 'curl', sdk: 'SDK (@cluster/client)', python: 'Python' } as const;

/** The three samples of one operation. */
export function codeSamples(op: SampleOperation): CodeSample[] {
  return [
    { lang: 'Shell', label: SAMPLE_LABELS.curl, source: curlSample(op) },
    { lang: 'JavaScript', label: SAMPLE_LABELS.sdk, source: sdkSample(op) },
    { lang: 'Python', label: SAMPLE_LABELS.python, source: pythonSample(op) },
  ];
}

/** The labels of a stream's samples (GET /webhooks/listen): the SDK does not read streams, the CLI does. */
export const STREAM_SAMPLE_LABELS = { curl: 'curl', cli: 'CLI (@cluster/cli)', python: 'Python' } as const;

/**
 * The samples of a text/event-stream operation (the one there is: GET /webhooks/listen): curl without
 * buffering (`-N`), the CLI that forwards the events, and Python printing each line as it comes.
 */
export function streamSamples(op: Pick<SampleOperation, 'path'>): CodeSample[] {
  const url = `$${ENV.url}${op.path}`;
  return [
    {
      lang: 'Shell',
      label: STREAM_SAMPLE_LABELS.curl,
      source: [`curl -N "${url}?events=entry.*"`, `-H "Authorization: Bearer $${ENV.key}"`].join(' \\\n  '),
    },
    {
      lang: 'Shell',
      label: STREAM_SAMPLE_LABELS.cli,
      source: "npx @cluster/cli listen --forward-to http://localhost:3000/hooks --events 'entry.*'",
    },
    {
      lang: 'Python',
      label: STREAM_SAMPLE_LABELS.python,
      source: [
        'import os',
        'import urllib.request',
        '',
        'request = urllib.request.Request(',
        `    f"{os.environ['${ENV.url}']}${op.path}?events=entry.*",`,
        '    method="GET",',
        `    headers={"Authorization": f"Bearer {os.environ['${ENV.key}']}"},`,
        ')',
        'with urllib.request.urlopen(request) as response:',
        '    for line in response:',
        '        print(line.decode().rstrip())',
      ].join('\n'),
    },
  ];
}
