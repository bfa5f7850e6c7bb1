import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi, routes } from '@cluster/gateway';

describe('OpenAPI document', () => {
  const doc = buildOpenApi(routes) as { paths: Record<string, Record<string, { operationId: string }>> };

  it('docs/openapi.json is the current one (run `npm run openapi` after changing routes)', () => {
    const committed = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', 'docs', 'openapi.json'), 'utf8'));
    expect(committed).toEqual(doc);
  });

  it('has one unique operationId per route', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids).toHaveLength(routes.length);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
