import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient, operations } from '@cluster/client';
import { buildOpenApi, routes } from '@cluster/gateway';
import { REASON_STATUS } from '@cluster/platform';
import { generateClientSources, operationTable, type OpenApiDocument } from '../packages/client/scripts/generate.ts';

// The SDK's generated code is what `npm run openapi` writes from the current route table (the same
// check test/openapi.test.ts makes of docs/openapi.json): a route changed without regenerating fails here.

const ROOT = path.resolve(import.meta.dirname, '..');

describe('the SDK generated from the OpenAPI document', () => {
  it('has its committed generated sources current (run `npm run openapi` after changing routes)', async () => {
    const document = buildOpenApi(routes);
    for (const { file, text } of await generateClientSources(document, Object.keys(REASON_STATUS))) {
      expect(readFileSync(path.join(ROOT, 'packages', 'client', file), 'utf8'), file).toBe(text);
    }
  });

  it('has a method for every operation of the document, each under one name', () => {
    const document = buildOpenApi(routes) as unknown as OpenApiDocument;
    // Every operation but a stream (GET /webhooks/listen, text/event-stream): @cluster/cli reads it, not the SDK.
    const streams = new Set(
      routes.filter((r) => r.response.contentType).map((r) => `${r.method.toLowerCase()} /api/v1${r.path}`),
    );
    expect([...streams]).toEqual(['get /api/v1/webhooks/listen']);
    const inDocument = Object.entries(document.paths).flatMap(([p, item]) =>
      Object.keys(item as object)
        .filter((m) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
        .map((m) => `${m} ${p}`)
        .filter((op) => !streams.has(op)),
    );
    const table = operationTable(document);
    expect(table.map((r) => `${r.method} ${r.path}`).sort()).toEqual(inDocument.sort());
    const client = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    for (const row of table) expect(typeof client[row.namespace]?.[row.name], `${row.namespace}.${row.name}`).toBe('function');
    expect(Object.keys(operations)).toEqual([...new Set(table.map((r) => r.namespace))]);
  });

  it("has the README's table of methods equal to the generated operation table", () => {
    const readme = readFileSync(path.join(ROOT, 'packages', 'client', 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `(\w+)` \| (.+) \|$/gm)].map(([, namespace, methods]) => [
      namespace,
      [...methods.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort(),
    ]);
    const generated = Object.entries(operations).map(([namespace, defs]) => [namespace, Object.keys(defs).sort()]);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(generated));
  });

  it('fails the generation when two operations would get one name', () => {
    const document = {
      paths: {
        '/api/v1/projects/{id}/things': { get: { tags: ['things'], parameters: [{ name: 'page', in: 'query' }] } },
        '/api/v1/entries/{id}/things': { get: { tags: ['things'], parameters: [{ name: 'page', in: 'query' }] } },
      },
    };
    expect(() => operationTable(document)).toThrow(/two operations are named things.list/);
  });
});
