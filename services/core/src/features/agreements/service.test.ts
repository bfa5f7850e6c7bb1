import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf, testActor, like, anyString } from '../../shared/test-kit.ts';
import { AgreementAdminError, createAgreementAdmin } from './admin.ts';
import { createAgreementService } from './service.ts';

async function setUp() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: 'client-1', name: 'Site', description: '' });
  const other = await stores.projects.insert({ organizationId: TEST_ORG, clientId: 'client-2', name: 'Other', description: '' });
  return { stores, project, other, agreements: createAgreementService(stores), admin: createAgreementAdmin(stores) };
}

describe('agreement rules (fake stores)', () => {
  it("creates a pending_signature agreement for the project's client, audited as the operator's, without event", async () => {
    const { stores, project, admin, agreements } = await setUp();
    const { id } = await admin.create(project.id, '  Master services  ');
    expect(await agreements.get(testActor(), id)).toEqual({
      id,
      projectId: project.id,
      title: 'Master services',
      status: 'pending_signature',
      signedAt: null,
      createdAt: anyString,
    });
    expect(stores.agreements.rows[0]).toMatchObject({ clientId: 'client-1', organizationId: TEST_ORG });
    expect(stores.written).toEqual([
      {
        rows: [
          like({
            row: like({
              action: 'created',
              entityType: 'agreement',
              entityName: 'Master services',
              actorId: null,
              metadata: { actorType: 'admin_cli' },
            }),
          }),
        ],
        events: [],
      },
    ]);
  });

  it('signs once: pending_signature -> signed emits agreement.signed (no acting user); signing again writes nothing', async () => {
    const { stores, project, admin, agreements } = await setUp();
    const { id } = await admin.create(project.id, 'MSA');
    expect(await admin.sign(id)).toEqual({ id, status: 'signed' });
    expect(await admin.sign(id)).toEqual({ id, status: 'signed' });
    expect(stores.written).toHaveLength(2);
    const signed = stores.written[1];
    expect(signed.rows[0].row).toMatchObject({
      action: 'signed',
      entityId: id,
      projectId: project.id,
      metadata: { actorType: 'admin_cli' },
    });
    expect(signed.events).toEqual([
      like({
        eventName: 'agreement.signed',
        organizationId: TEST_ORG,
        actorUserId: null,
        projectId: project.id,
        payload: { agreementId: id, projectId: project.id, clientId: 'client-1', status: 'signed' },
      }),
    ]);
    expect(await agreements.get(testActor(), id)).toMatchObject({ status: 'signed', signedAt: anyString });
  });

  it("refuses the operator's mistakes with a message (unknown project or agreement, empty title)", async () => {
    const { stores, project, admin } = await setUp();
    await expect(admin.create(project.id, ' ')).rejects.toThrow(new AgreementAdminError('--title is required'));
    await expect(admin.create(OTHER_ORG, 'x')).rejects.toThrow('unknown project');
    await expect(admin.create('nope', 'x')).rejects.toThrow('unknown project');
    await expect(admin.sign(OTHER_ORG)).rejects.toThrow('unknown agreement');
    expect(stores.written).toEqual([]);
  });

  it("hides another organization's agreements and, from a project key, another project's (404); lists are scoped (403)", async () => {
    const { project, other, admin, agreements } = await setUp();
    const mine = await admin.create(project.id, 'A');
    const theirs = await admin.create(other.id, 'B');
    expect(await reasonOf(agreements.get(testActor({ organizationId: OTHER_ORG }), mine.id))).toBe('not_found');
    const key = testActor({ scope: 'project', scopedProjectId: project.id });
    expect((await agreements.get(key, mine.id)).title).toBe('A');
    expect(await reasonOf(agreements.get(key, theirs.id))).toBe('not_found');
    expect(await reasonOf(agreements.list(key, other.id, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    expect((await agreements.list(key, project.id, { page: 1, pageSize: 25 })).data.map((a) => a.id)).toEqual([mine.id]);
  });
});
