import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATION_RULES } from '@cluster/contracts';
import { routes } from '../routes.ts';
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
});
