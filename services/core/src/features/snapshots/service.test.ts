import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf, testActor, like, anyString } from '../../shared/test-kit.ts';
import { createSnapshotAdmin } from './admin.ts';
import { templateSummary } from './presenter.ts';
import { createSnapshotService } from './service.ts';

async function setUp() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });
  const other = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Other', description: '' });
  return { stores, project, other, snapshots: createSnapshotService(stores), admin: createSnapshotAdmin(stores) };
}

describe('snapshot rules (fake stores)', () => {
  it("writes the template narrative from the project's figures when no summary is given (narrativeSource template)", async () => {
    const { stores, project, admin, snapshots } = await setUp();
    stores.snapshots.figures.set(project.id, {
      entriesByStatus: [
        { status: 'in_progress', count: 2 },
        { status: 'open', count: 1 },
      ],
      releases: 1,
      released: 0,
      wikiPages: 3,
    });
    const { id } = await admin.create({ projectId: project.id, reportType: ' weekly ', narrativeSource: 'ai' });
    const [listed] = (await snapshots.list(testActor(), project.id, { page: 1, pageSize: 25 })).data;
    expect(listed).toEqual({
      id,
      scopeType: 'project',
      scopeId: project.id,
      reportType: 'weekly',
      status: 'ready',
      narrativeSource: 'template',
      summary: 'weekly report for Site: 3 entries (2 in progress, 1 open); 1 release (0 released); 3 wiki pages.',
      createdAt: anyString,
    });
    expect(stores.written).toEqual([
      {
        rows: [
          like({
            row: like({
              entityType: 'snapshot',
              action: 'created',
              entityId: id,
              entityName: 'weekly',
              metadata: { actorType: 'admin_cli' },
            }),
          }),
        ],
        events: [],
      },
    ]);
  });

  it('keeps a given summary with its narrative source (none when not said)', async () => {
    const { project, admin, snapshots } = await setUp();
    await admin.create({ projectId: project.id, reportType: 'monthly', summary: ' All good ', narrativeSource: 'ai' });
    await admin.create({ projectId: project.id, reportType: 'monthly', summary: 'Fine' });
    const data = (await snapshots.list(testActor(), project.id, { page: 1, pageSize: 25 })).data;
    // Newest first, as the store lists.
    expect(data.map((s) => [s.summary, s.narrativeSource])).toEqual([
      ['Fine', null],
      ['All good', 'ai'],
    ]);
  });

  it("refuses the operator's mistakes with a message", async () => {
    const { stores, project, admin } = await setUp();
    await expect(admin.create({ projectId: project.id, reportType: ' ' })).rejects.toThrow('--report-type is required');
    await expect(admin.create({ projectId: project.id, reportType: 'w', narrativeSource: 'oracle' })).rejects.toThrow(
      '--narrative-source must be ai or template',
    );
    await expect(admin.create({ projectId: OTHER_ORG, reportType: 'w' })).rejects.toThrow('unknown project');
    expect(stores.written).toEqual([]);
  });

  it('words the template in the singular for one of a kind, and without statuses for no entries', () => {
    const one = templateSummary('P', 'daily', {
      entriesByStatus: [{ status: 'done', count: 1 }],
      releases: 1,
      released: 1,
      wikiPages: 1,
    });
    expect(one).toBe('daily report for P: 1 entry (1 done); 1 release (1 released); 1 wiki page.');
    expect(templateSummary('P', 'daily', { entriesByStatus: [], releases: 0, released: 0, wikiPages: 0 })).toBe(
      'daily report for P: 0 entries; 0 releases (0 released); 0 wiki pages.',
    );
  });

  it("lists a project's snapshots only within the key's scope", async () => {
    const { project, other, admin, snapshots } = await setUp();
    await admin.create({ projectId: other.id, reportType: 'w', summary: 's' });
    const key = testActor({ scope: 'project', scopedProjectId: project.id });
    expect(await reasonOf(snapshots.list(key, other.id, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    expect(await reasonOf(snapshots.list(testActor({ organizationId: OTHER_ORG }), other.id, { page: 1, pageSize: 25 }))).toBe(
      'not_found',
    );
    expect((await snapshots.list(key, project.id, { page: 1, pageSize: 25 })).data).toEqual([]);
  });
});
