import { describe, expect, it } from 'vitest';
import type { ReleaseCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, reasonOf, TEST_ORG, testActor as actor, unvalidated, like } from '../../shared/test-kit.ts';
import { createReleaseService } from './service.ts';

const dates = { startDate: '2025-01-01T00:00:00.000Z', endDate: '2025-02-01T00:00:00.000Z' };

async function setup() {
  const stores = createFakeStores();
  const releases = createReleaseService(stores);
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
  return { stores, releases, project };
}

const eventNames = (stores: ReturnType<typeof createFakeStores>) => stores.written.map((w) => w.events.map((e) => e.eventName));

describe('release rules (fake stores)', () => {
  it('creates with release.created (dates as ISO strings) and an audit record; hides the once-only flag', async () => {
    const { stores, releases, project } = await setup();
    // bogus: an unknown property the gateway refuses; the core must ignore it all the same.
    const body = unvalidated<ReleaseCreateBody>({
      name: 'R1',
      version: '1.0',
      status: 'planning',
      type: 'minor',
      ...dates,
      bogus: 1,
    });
    const r = await releases.create(actor(), project.id, body);
    expect(r).toMatchObject({ name: 'R1', projectId: project.id, creatorId: 'u1', startDate: dates.startDate, releasedAt: null });
    expect(r).not.toHaveProperty('releasedEventSent');
    expect(r).not.toHaveProperty('organizationId');
    expect(r).not.toHaveProperty('bogus');
    const [write] = stores.written;
    expect(write.events).toEqual([
      like({
        eventName: 'release.created',
        entityType: 'release',
        entityId: r.id,
        projectId: project.id,
        payload: {
          releaseId: r.id,
          projectId: project.id,
          name: 'R1',
          status: 'planning',
          type: 'minor',
          version: '1.0',
          ...dates,
        },
      }),
    ]);
    expect(write.rows[0].row).toMatchObject({ entityType: 'release', action: 'created', entityName: 'R1' });
  });

  it('takes a calendar date as midnight UTC', async () => {
    const { releases, project } = await setup();
    const r = await releases.create(actor(), project.id, {
      name: 'R',
      startDate: '2026-12-01',
      endDate: '2026-12-31T12:00:00+02:00',
    });
    expect(r).toMatchObject({ startDate: '2026-12-01T00:00:00.000Z', endDate: '2026-12-31T10:00:00.000Z' });
    const u = await releases.update(actor(), r.id as string, { endDate: '2027-01-15' });
    expect(u).toMatchObject({ endDate: '2027-01-15T00:00:00.000Z' });
  });

  it('refuses an endDate before the startDate, on create and on the merged values of an update (400)', async () => {
    const { stores, releases, project } = await setup();
    await expect(
      releases.create(actor(), project.id, { name: 'R', startDate: dates.endDate, endDate: dates.startDate }),
    ).rejects.toMatchObject({
      reason: 'validation_error',
      details: { errors: [{ path: '/endDate', message: 'must not be before startDate' }] },
    });
    const r = await releases.create(actor(), project.id, { name: 'R', status: 'planning', ...dates });
    expect(await reasonOf(releases.update(actor(), r.id as string, { endDate: '2024-12-31T00:00:00.000Z' }))).toBe(
      'validation_error',
    );
    expect(await reasonOf(releases.update(actor(), r.id as string, { startDate: '2024-12-01T00:00:00.000Z' }))).toBe('no error');
    expect(stores.written).toHaveLength(2);
  });

  it('emits release.status_changed on every move and release.released only the first time, setting releasedAt then', async () => {
    const { stores, releases, project } = await setup();
    const r = await releases.create(actor(), project.id, { name: 'R', status: 'planning', ...dates });
    const id = r.id as string;
    await releases.update(actor(), id, { status: 'in_progress' });
    const released = await releases.update(actor(), id, { status: 'released' });
    await releases.update(actor(), id, { status: 'in_progress' });
    await releases.update(actor(), id, { status: 'released' });
    await releases.update(actor(), id, { status: 'released', name: 'Renamed' });
    expect(eventNames(stores)).toEqual([
      ['release.created'],
      ['release.status_changed'],
      ['release.status_changed', 'release.released'],
      ['release.status_changed'],
      ['release.status_changed'],
      [],
    ]);
    expect(typeof released.releasedAt).toBe('string');
    const [moved, done] = stores.written[2].events;
    expect(moved.payload).toMatchObject({ previousStatus: 'in_progress', newStatus: 'released', status: 'released' });
    expect(done.payload).toEqual({
      releaseId: id,
      projectId: project.id,
      name: 'R',
      status: 'released',
      version: undefined,
      releasedAt: released.releasedAt,
    });
    expect(stores.written[5].rows[0].row).toMatchObject({
      action: 'updated',
      metadata: like({ changedFields: ['name'] }),
    });
  });

  it('a release created as released emits release.created and release.released; a given or earlier releasedAt is kept', async () => {
    const { stores, releases, project } = await setup();
    const given = '2025-01-15T00:00:00.000Z';
    const a = await releases.create(actor(), project.id, { name: 'A', status: 'released', releasedAt: given, ...dates });
    expect(a.releasedAt).toBe(given);
    expect(eventNames(stores)[0]).toEqual(['release.created', 'release.released']);
    const b = await releases.create(actor(), project.id, { name: 'B', status: 'planning', releasedAt: given, ...dates });
    const moved = await releases.update(actor(), b.id as string, { status: 'released' });
    expect(moved.releasedAt).toBe(given);
    expect(stores.written[2].events.at(-1)?.payload.releasedAt).toBe(given);
  });

  it("hides another organization's release and, from a project key, another project's (404); list is 403 on another project", async () => {
    const { stores, releases, project } = await setup();
    const r = await releases.create(actor(), project.id, { name: 'R', status: 'planning', ...dates });
    const writes = stores.written.length;
    const other = actor({ organizationId: OTHER_ORG });
    expect(await reasonOf(releases.get(other, r.id as string))).toBe('not_found');
    expect(await reasonOf(releases.update(other, r.id as string, { name: 'x' }))).toBe('not_found');
    expect(await reasonOf(releases.remove(other, r.id as string))).toBe('not_found');
    expect(await reasonOf(releases.create(other, project.id, { name: 'x', ...dates }))).toBe('not_found');
    const sibling = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    const key = actor({ scope: 'project', scopedProjectId: sibling.id });
    expect(await reasonOf(releases.get(key, r.id as string))).toBe('not_found');
    expect(await reasonOf(releases.list(key, project.id, {}, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    expect(stores.written).toHaveLength(writes);
    await releases.remove(actor(), r.id as string);
    expect(stores.written.at(-1)?.rows[0].row).toMatchObject({ action: 'deleted', entityName: 'R' });
    expect(stores.written.at(-1)?.events).toEqual([]);
  });
});
