import pg from 'pg';
import { grantablePermissions, type Permission } from '@cluster/contracts';
import type { SeededOrg, TestCluster } from './cluster.ts';

/** An org-scoped key of the org's admin whose explicit permissions lack exactly `permission`. */
export async function keyLacking(c: TestCluster, org: SeededOrg, permission: Permission): Promise<string> {
  const all = [...grantablePermissions('admin')].filter((p) => p !== permission);
  return (await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: all.join(',') })).key;
}

/** A project-scoped key of the org's admin. */
export async function projectKey(
  c: TestCluster,
  org: SeededOrg,
  projectId = org.projectId,
  permissions?: Permission[],
): Promise<string> {
  return (
    await c.admin.createKey({ user: org.adminId, scope: 'project', project: projectId, permissions: permissions?.join(',') })
  ).key;
}

/** Runs SQL against the cluster's database (core schema first on the path). */
export async function sql<T extends Record<string, unknown> = Record<string, unknown>>(
  c: TestCluster,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: c.databaseUrl });
  await client.connect();
  try {
    await client.query('SET search_path TO core, public');
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Creates a project through the API and returns its id. */
export async function createProject(c: TestCluster, key: string, name: string, description = 'a project'): Promise<string> {
  const res = await c.api(key, 'POST', '/projects', { name, description });
  if (res.status !== 201) throw new Error(`project create failed: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Error paths of a 400 validation_error body. */
export function errorPaths(body: { details?: { errors?: { path: string }[] } }): string[] {
  return (body.details?.errors ?? []).map((e) => e.path);
}
