import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PUBLIC_EVENT_TYPES } from '@cluster/contracts';
import { buildOpenApi, routes } from '@cluster/gateway';
import { run } from './support/processes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

type Schema = Record<string, unknown>;
interface Operation {
  operationId: string;
  tags: string[];
  parameters: { name: string; in: string; description?: string; required?: boolean }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { $ref?: string; content?: { 'application/json'?: { schema: Schema } } }>;
}
interface Doc {
  info: { license?: unknown; contact?: unknown };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, unknown>; parameters: Record<string, Schema> };
  webhooks: Record<string, { post: Operation & { parameters: { $ref: string }[] } }>;
}

// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what imports.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

describe('OpenAPI document', () => {
  const doc = buildOpenApi(routes) as unknown as Doc;
  const operations = Object.values(doc.paths).flatMap((ops) => Object.values(ops));

  it('docs/openapi.json is the current one (run `npm run openapi` after changing routes)', () => {
    const committed = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(committed).toEqual(doc);
  });

  it('has one unique operationId per route', () => {
    const ids = operations.map((o) => o.operationId);
    expect(ids).toHaveLength(routes.length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('passes redocly lint with the recommended rules, without a warning', async () => {
    const { stdout: out } = await run(
      'npx',
      ['--no-install', 'redocly', 'lint', 'docs/openapi.json', '--extends', 'recommended', '--format', 'json'],
      // No usage data sent from a test run (docs: Redocly CLI's "Usage data").
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off' } },
    );
    const report = JSON.parse(out) as { totals: { errors: number; warnings: number }; problems: { message: string }[] };
    expect(report.problems.map((p) => p.message)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('names its schemas: every request body is a $ref, every answer refers to a named resource', () => {
    for (const name of ['Entry', 'EntryCreate', 'Release', 'Project', 'TimeEntry', 'Webhook', 'ErrorBody', 'ApiError'])
      expect(doc.components.schemas[name], name).toBeDefined();
    for (const op of operations) {
      const body = op.requestBody?.content['application/json'].schema;
      if (body) expect(body.$ref, op.operationId).toMatch(/^#\/components\/schemas\/[A-Z]\w+$/);
      for (const [status, answer] of Object.entries(op.responses)) {
        // A stream (text/event-stream: GET /webhooks/listen) has no JSON answer to name.
        const schema = answer.content?.['application/json']?.schema;
        if (Number(status) >= 400) expect(answer.$ref, `${op.operationId} ${status}`).toMatch(/^#\/components\/responses\//);
        else if (schema) expect(JSON.stringify(schema), op.operationId).toContain('"$ref":"#/components/schemas/');
      }
    }
  });

  it('describes every error body with one schema, the unknown_event_names answer included', () => {
    const apiError = JSON.stringify(doc.components.schemas.ApiError);
    expect(apiError).toContain('#/components/schemas/ErrorBody');
    expect(apiError).toContain('#/components/schemas/UnknownEventNamesBody');
    for (const answer of Object.values(doc.components.responses))
      expect(JSON.stringify(answer)).toContain('#/components/schemas/ApiError');
  });

  it("marks a query parameter required exactly when the operation's query schema requires it (GET /search's q)", () => {
    let required = 0;
    for (const r of routes) {
      if (!r.query) continue;
      const op = doc.paths[`/api/v1${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`][r.method.toLowerCase()];
      for (const p of op.parameters.filter((x) => x.in === 'query')) {
        const want = (r.query.required ?? []).includes(p.name);
        expect(p.required, `${op.operationId} ${p.name}`).toBe(want);
        if (want) required++;
      }
    }
    expect(required).toBeGreaterThan(0);
    const search = doc.paths['/api/v1/search'].get;
    expect(search.parameters.find((p) => p.name === 'q')?.required).toBe(true);
  });

  it('declares and describes its tags, and describes every parameter; license and contact are set', () => {
    const declared = new Map(doc.tags.map((t) => [t.name, t.description]));
    for (const op of operations) for (const tag of op.tags) expect(declared.get(tag), tag).toBeTruthy();
    for (const op of operations)
      for (const p of op.parameters) expect(p.description, `${op.operationId} ${p.in} ${p.name}`).toBeTruthy();
    expect(doc.info.license).toBeDefined();
    expect(doc.info.contact).toBeDefined();
  });

  it('lists one webhook per name a subscription may list, its body the envelope of that event (draft 2020-12)', () => {
    expect(Object.keys(doc.webhooks)).toEqual(PUBLIC_EVENT_TYPES.map((e) => e.name));
    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    for (const e of PUBLIC_EVENT_TYPES) {
      const op = doc.webhooks[e.name].post;
      expect(op.tags).toEqual(['webhook-events']);
      for (const p of op.parameters) expect(doc.components.parameters[p.$ref.split('/').pop()!], p.$ref).toBeDefined();
      const schema = op.requestBody!.content['application/json'].schema as { properties: Record<string, Schema> };
      expect(schema.properties.eventName.const, e.name).toBe(e.name);
      expect(schema.properties.payload, e.name).toEqual(e.payloadSchema);
      // Compiles as JSON Schema 2020-12 (OpenAPI 3.1's dialect) in strict mode: no keyword it does not know.
      expect(() => ajv.compile(schema), e.name).not.toThrow();
    }
  });

  it("a webhook's schema accepts the body docs/webhooks.md shows and refuses it under another name", () => {
    const ajv = addFormats(new Ajv2020({ strict: true }));
    const body = {
      id: '8b6c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d',
      eventName: 'entry.created',
      schemaVersion: 1,
      entityType: 'entry',
      entityId: '3f0c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d',
      occurredAt: '2026-11-22T12:50:00.000Z',
      actorUserId: null,
      payload: {
        entryId: '3f0c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d',
        projectId: '4a0c2a5e-5d0b-4f0e-9a59-0b0f3f7c1a2d',
        title: 'Login fails',
        type: 'bug_report',
        status: 'open',
        occurredAt: '2026-11-22T12:50:00.000Z',
      },
    };
    const schemaOf = (name: string) => doc.webhooks[name].post.requestBody!.content['application/json'].schema;
    expect(ajv.validate(schemaOf('entry.created'), body), JSON.stringify(ajv.errors)).toBe(true);
    expect(ajv.validate(schemaOf('entry.updated'), body)).toBe(false);
    expect(ajv.validate(schemaOf('entry.created'), { ...body, payload: { ...body.payload, status: 'craeted' } })).toBe(false);
  });
});
