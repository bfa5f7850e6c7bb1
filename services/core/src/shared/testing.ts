import type { Actor } from '@cluster/proto';
import { DomainError } from '@cluster/platform';
import type { FakeStores } from '../fake-stores.ts';
import type { ProjectRow } from '../features/projects/store.ts';

/**
 * Helpers of the unit tests of the rules (service.test.ts beside each feature):
 * actors, the reason a call fails with, and rows seeded into fake stores.
 */

export const ORG = '00000000-0000-4000-8000-000000000001';
export const OTHER_ORG = '00000000-0000-4000-8000-000000000002';

/** An organization-wide admin key of ORG, acting as user u1; `over` changes any field. */
export function testActor(over: Partial<Actor> = {}): Actor {
  return {
    $typeName: 'cluster.common.v1.Actor',
    organizationId: ORG, userId: 'u1', apiKeyId: 'k1', scope: 'organization', role: 'admin', permissions: [], requestId: 'r1',
    ...over,
  };
}

/** The public reason a call fails with ('no error' when it succeeds), e.g. 'not_found'. */
export async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (err) {
    return err instanceof DomainError ? err.reason : String(err);
  }
}

/** The error a call fails with (a DomainError), to assert its details. */
export async function errorOf(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

/** Seeds a project into fake stores (no write recorded). */
export async function seedProject(stores: FakeStores, organizationId = ORG, values: Record<string, unknown> = {}): Promise<ProjectRow> {
  return stores.projects.insert({ name: 'Site', organizationId, clientId: organizationId, ...values });
}
