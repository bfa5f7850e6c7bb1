import { expect } from 'vitest';
import { PERMISSIONS } from '@cluster/contracts';
import type { EventEnvelope } from '@cluster/contracts';
import type { ApiResponse, SeededOrg, TestCluster } from './cluster.ts';

/** One bad body of a table-driven validation test and the JSON pointer it must be reported at. */
export interface BadCase {
  name: string;
  body: Record<string, unknown>;
  path: string;
}

/** Asserts a 400 validation_error whose details name `path`. */
export function expectValidation(res: ApiResponse, path: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.reason).toBe('validation_error');
  expect(res.body.details.errors.map((e: { path: string }) => e.path)).toContain(path);
}

/** Asserts the spec's 404 body. */
export function expectNotFound(res: ApiResponse): void {
  expect(res.status, JSON.stringify(res.body)).toBe(404);
  expect(res.body.reason).toBe('not_found');
}

/** Asserts 403 scope_violation. */
export function expectScopeViolation(res: ApiResponse): void {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.reason).toBe('scope_violation');
}

/**
 * An organization-scoped admin key with every permission an admin may grant except
 * `missing` (so a call needing `missing` fails on exactly that permission).
 */
export async function keyLacking(c: TestCluster, org: SeededOrg, missing: string): Promise<string> {
  const perms = PERMISSIONS.filter((p) => p !== missing && p !== 'delete:project_member');
  const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: perms.join(',') });
  return key;
}

/** Asserts 403 forbidden naming the missing permission. */
export function expectMissingPermission(res: ApiResponse, permission: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.reason).toBe('forbidden');
  expect(res.body.message).toContain(permission);
}

/** Events of one entity, after the topic has gone quiet (for "exactly these" assertions). */
export async function settledEventsOf(c: TestCluster, entityId: string, names?: string[]): Promise<EventEnvelope[]> {
  return c.events.settle((e) => e.entityId === entityId && (!names || names.includes(e.eventName)));
}

/** Waits for one event of an entity and returns it. */
export async function eventOf(c: TestCluster, eventName: string, entityId: string, count = 1): Promise<EventEnvelope> {
  const found = await c.events.waitFor((e) => e.eventName === eventName && e.entityId === entityId, count);
  return found[count - 1];
}

/** The audit events of an entity, read through the public API. */
export async function auditOf(c: TestCluster, key: string, entityType: string, entityId: string) {
  const res = await c.api(key, 'GET', `/audit-events?entityType=${entityType}&pageSize=100`);
  expect(res.status).toBe(200);
  return (res.body.data as { entityId: string; action: string; metadata: Record<string, unknown>; actorId: string }[]).filter(
    (a) => a.entityId === entityId,
  );
}
