import { describe, expect, it } from 'vitest';
import type { ProjectCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, reasonOf, TEST_ORG, testActor as actor, unvalidated, like } from '../../shared/test-kit.ts';
import { createProjectService } from './service.ts';

describe('project rules (fake stores)', () => {
  it('creates a project in the actor organization, audits it and emits project.created', async () => {
    const stores = createFakeStores();
    const projects = createProjectService(stores);
    // clientId (update only) and bogus: properties the gateway refuses on create; the core must ignore them all the same.
    const body = unvalidated<ProjectCreateBody>({ name: 'Site', description: 'x', clientId: OTHER_ORG, bogus: 1 });
    const p = await projects.create(actor(), body);
    expect(p).toMatchObject({ name: 'Site', organizationId: TEST_ORG, clientId: TEST_ORG });
    expect(p).not.toHaveProperty('bogus');
    expect(p).not.toHaveProperty('entryCounter');
    const [write] = stores.written;
    expect(write.rows).toEqual([
      like({
        table: 'audit_events',
        row: like({ action: 'created', entityId: p.id, actorId: 'u1' }),
      }),
    ]);
    expect(write.events).toEqual([
      like({
        eventName: 'project.created',
        organizationId: TEST_ORG,
        actorUserId: 'u1',
        payload: like({ name: 'Site' }),
      }),
    ]);
  });

  it('emits project.updated with the changed fields only when something changed, and audits either way', async () => {
    const stores = createFakeStores();
    const projects = createProjectService(stores);
    const p = await projects.create(actor(), { name: 'Site', description: 'x' });
    await projects.update(actor(), p.id as string, { name: 'Site', description: 'y' });
    await projects.update(actor(), p.id as string, { description: 'y' });
    const [, changed, unchanged] = stores.written;
    expect(changed.events.map((e) => [e.eventName, e.payload.changedFields])).toEqual([['project.updated', ['description']]]);
    expect(unchanged.events).toEqual([]);
    expect(unchanged.rows[0].row).toMatchObject({ action: 'updated', metadata: like({ changedFields: [] }) });
  });

  it("hides another organization's project (404) and confines a project key (403 on another project, its own only in lists)", async () => {
    const stores = createFakeStores();
    const projects = createProjectService(stores);
    const mine = await projects.create(actor(), { name: 'A', description: '' });
    const other = await projects.create(actor(), { name: 'B', description: '' });
    const foreign = await projects.create(actor({ organizationId: OTHER_ORG }), { name: 'C', description: '' });
    expect(await reasonOf(projects.get(actor(), foreign.id as string))).toBe('not_found');
    expect(await reasonOf(projects.get(actor(), 'not-a-uuid'))).toBe('not_found');
    const key = actor({ scope: 'project', scopedProjectId: mine.id as string });
    expect(await reasonOf(projects.update(key, other.id as string, { name: 'x' }))).toBe('scope_violation');
    const page = await projects.list(key, {}, { page: 1, pageSize: 25 });
    expect(page.data.map((p) => p.id)).toEqual([mine.id]);
    expect(page.total).toBe(1);
  });

  it('writes nothing for a refused delete', async () => {
    const stores = createFakeStores();
    const projects = createProjectService(stores);
    const foreign = await projects.create(actor({ organizationId: OTHER_ORG }), { name: 'C', description: '' });
    expect(await reasonOf(projects.remove(actor(), foreign.id as string))).toBe('not_found');
    expect(stores.written).toHaveLength(1);
    expect(stores.projects.rows).toHaveLength(1);
  });
});
