import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EntryCreate, EntryUpdate, OPERATION_RULES } from '@cluster/contracts';
import { routes } from '../routes.ts';
import type { RouteDef } from './route.ts';
import { operationRules, operationRulesSource } from './operation-rules.ts';

describe('the operation rules the backends enforce', () => {
  it('are the committed OPERATION_RULES of @cluster/contracts (run `npm run openapi` after changing a route)', () => {
    const committed = readFileSync(
      path.resolve(import.meta.dirname, '../../../../packages/contracts/src/operation-rules.ts'),
      'utf8',
    );
    expect(committed).toBe(operationRulesSource(routes));
    expect(OPERATION_RULES).toEqual(operationRules(routes));
  });

  it('cover every route a backend answers, with the route’s permission', () => {
    for (const route of routes.filter((r) => r.backend !== 'gateway')) {
      expect(route.operation, `${route.method} ${route.path}`).toBeDefined();
      expect(OPERATION_RULES[route.operation!]?.permission, `${route.method} ${route.path}`).toBe(route.permission);
    }
  });

  it('carry the body schema of every route whose operation takes its body as a Struct: the same schema, not a copy', () => {
    const createEntry = routes.find((r) => r.operation === 'cluster.core.v1.EntryService/CreateEntry');
    expect(OPERATION_RULES['cluster.core.v1.EntryService/CreateEntry']?.body).toBe(EntryCreate);
    expect(createEntry?.body).toBe(EntryCreate);
    for (const route of routes.filter((r) => r.operation && r.body && r.method !== 'GET'))
      expect(OPERATION_RULES[route.operation!]?.body, `${route.method} ${route.path}`).toBe(route.body);
    // A list's query: its filters, which the list's query schema admits.
    expect(OPERATION_RULES['cluster.core.v1.EntryService/ListEntries']?.query).toEqual(
      routes.find((r) => r.operation === 'cluster.core.v1.EntryService/ListEntries')?.query,
    );
  });

  it('refuse routes that share an operation with different body or query schemas', () => {
    const createEntry = routes.find((r) => r.operation === 'cluster.core.v1.EntryService/CreateEntry')!;
    const other: RouteDef = { ...createEntry, path: '/entries', body: EntryUpdate };
    expect(() => operationRules([createEntry, other])).toThrow(/CreateEntry: its routes have different body schemas/);
    const list = routes.find((r) => r.operation === 'cluster.core.v1.EntryService/ListEntries')!;
    const otherList: RouteDef = { ...list, path: '/entries', query: undefined };
    expect(() => operationRules([list, otherList])).toThrow(/ListEntries: its routes have different query schemas/);
  });
});
