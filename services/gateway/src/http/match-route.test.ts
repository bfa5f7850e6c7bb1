import { describe, expect, it } from 'vitest';
import { jsonBytes } from '@cluster/platform';
import { ok } from './results.ts';
import { findRoute } from './match-route.ts';
import { createMatcher, handler, toRoute, type RouteDef } from './route.ts';

const route = (method: RouteDef['method'], path: string): RouteDef =>
  toRoute(
    { method, path, summary: path, tag: 't', tool: false, response: { status: 200 } },
    handler({}, async () => ok(jsonBytes({ path }))),
  );

const routes = [
  route('GET', '/projects'),
  route('POST', '/projects'),
  route('GET', '/projects/:id'),
  route('PATCH', '/projects/:id'),
  route('GET', '/projects/:id/members/:memberId'),
  route('POST', '/time-entries/sync'),
  route('GET', '/time-entries/:id'),
];
const match = createMatcher(routes);

describe('findRoute (pipeline step 1)', () => {
  it('finds the route of a method and path under /api/v1, with its decoded params', () => {
    const found = findRoute(match, 'GET', '/api/v1/projects/p%201/members/m1');
    expect(found.route?.path).toBe('/projects/:id/members/:memberId');
    expect(found).toMatchObject({ params: { id: 'p 1', memberId: 'm1' } });
  });

  it('accepts one trailing slash', () => {
    expect(findRoute(match, 'GET', '/api/v1/projects/').route?.path).toBe('/projects');
  });

  it('tells a path without this method (its methods, once each, in table order) from no such path', () => {
    expect(findRoute(match, 'DELETE', '/api/v1/projects/p1')).toEqual({ allow: ['GET', 'PATCH'] });
    expect(findRoute(match, 'DELETE', '/api/v1/nothing')).toEqual({ allow: [] });
  });

  it('takes the first matching route of the table: a literal segment before a parameter', () => {
    expect(findRoute(match, 'POST', '/api/v1/time-entries/sync').route?.path).toBe('/time-entries/sync');
    expect(findRoute(match, 'GET', '/api/v1/time-entries/sync')).toMatchObject({ params: { id: 'sync' } });
    expect(findRoute(match, 'PATCH', '/api/v1/time-entries/sync')).toEqual({ allow: ['POST', 'GET'] });
  });

  it('knows no path outside /api/v1 (and /api/v1 itself)', () => {
    expect(findRoute(match, 'GET', '/projects')).toEqual({ allow: [] });
    expect(findRoute(match, 'GET', '/api/v1')).toEqual({ allow: [] });
    expect(findRoute(match, 'GET', '/api/v2/projects')).toEqual({ allow: [] });
  });
});
