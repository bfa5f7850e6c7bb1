import { describe, expect, it } from 'vitest';
import type { IntegrationLinkUpdateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { answerOf, OTHER_ORG, reasonOf, TEST_ORG, testActor as actor, unvalidated, like } from '../../shared/test-kit.ts';
import { createIntegrationLinkService } from './service.ts';

const P1 = '20000000-0000-4000-8000-000000000001';
const P2 = '20000000-0000-4000-8000-000000000002';
const E1 = '30000000-0000-4000-8000-000000000001';
const E2 = '30000000-0000-4000-8000-000000000002';
const E_FOREIGN = '30000000-0000-4000-8000-000000000003';
const U1 = '40000000-0000-4000-8000-000000000001';

function setup() {
  const stores = createFakeStores();
  stores.integrationLinks.targets.push(
    { type: 'entry', id: E1, organizationId: TEST_ORG, projectId: P1 },
    { type: 'entry', id: E2, organizationId: TEST_ORG, projectId: P2 },
    { type: 'entry', id: E_FOREIGN, organizationId: OTHER_ORG, projectId: P2 },
    { type: 'user', id: U1, organizationId: TEST_ORG, projectId: null },
  );
  return { stores, links: createIntegrationLinkService(stores) };
}

const link = (over: Record<string, unknown> = {}) => ({
  provider: 'github',
  externalType: 'issue',
  externalId: '42',
  alignEntityType: 'entry',
  alignEntityId: E1,
  ...over,
});

describe('integration link rules (fake stores)', () => {
  it('creates a link in the project of its target (created: true), audited and with integration_link.created', async () => {
    const { stores, links } = setup();
    const res = await links.create(actor(), link());
    expect(res.created).toBe(true);
    expect(res.resource).toMatchObject({ provider: 'github', externalId: '42', alignEntityId: E1, organizationId: TEST_ORG });
    expect(res.resource).not.toHaveProperty('projectId');
    expect(stores.integrationLinks.rows[0].projectId).toBe(P1);
    const [write] = stores.written;
    expect(write.rows[0].row).toMatchObject({
      entityType: 'integration_link',
      action: 'created',
      entityName: 'github:issue:42',
      projectId: P1,
    });
    expect(write.events).toEqual([
      like({
        eventName: 'integration_link.created',
        entityId: res.resource.id,
        projectId: P1,
        payload: {
          integrationLinkId: res.resource.id,
          organizationId: TEST_ORG,
          provider: 'github',
          externalType: 'issue',
          externalId: '42',
          alignEntityType: 'entry',
          alignEntityId: E1,
        },
      }),
    ]);
  });

  it('matches a known external record (created: false, the existing link, nothing written); another project key gets 409', async () => {
    const { stores, links } = setup();
    const first = await links.create(actor(), link());
    const again = await links.create(actor(), link({ alignEntityId: E2 }));
    expect(again).toEqual({ created: false, resource: first.resource });
    expect(await reasonOf(links.create(actor({ scope: 'project', scopedProjectId: P2 }), link({ alignEntityId: E2 })))).toBe(
      'conflict',
    );
    expect(stores.written).toHaveLength(1);
    expect(stores.integrationLinks.rows).toHaveLength(1);
  });

  it('refuses (400) an unknown alignEntityType, a target of another organization, and for a project key one of another project', async () => {
    const { stores, links } = setup();
    await expect(links.create(actor(), link({ alignEntityType: 'toString' }))).rejects.toMatchObject({
      reason: 'validation_error',
      details: {
        errors: [
          {
            path: '/alignEntityType',
            message: 'must be one of: project, entry, release, comment, attachment, user, time_entry, wiki_page, agreement',
          },
        ],
      },
    });
    await expect(links.create(actor(), link({ alignEntityId: E_FOREIGN }))).rejects.toMatchObject({
      details: { errors: [{ path: '/alignEntityId', message: 'must be the id of a entry visible to this key' }] },
    });
    expect(await reasonOf(links.create(actor({ scope: 'project', scopedProjectId: P2 }), link()))).toBe('validation_error');
    expect(
      await reasonOf(
        links.create(actor({ scope: 'project', scopedProjectId: P1 }), link({ alignEntityType: 'user', alignEntityId: U1 })),
      ),
    ).toBe('validation_error');
    expect(stores.written).toEqual([]);
  });

  it('re-points a link (project follows the target) with integration_link.updated; an unchanged update is audited only', async () => {
    const { stores, links } = setup();
    const { resource } = await links.create(actor(), link());
    const id = resource.id as string;
    // provider: not updatable, so the gateway refuses it; the core must ignore it all the same.
    await links.update(actor(), id, unvalidated<IntegrationLinkUpdateBody>({ alignEntityId: E2, provider: 'ignored' }));
    await links.update(actor(), id, { alignEntityId: E2 });
    const [, moved, same] = stores.written;
    expect(stores.integrationLinks.rows[0]).toMatchObject({ provider: 'github', alignEntityId: E2, projectId: P2 });
    expect(moved.events).toEqual([
      like({
        eventName: 'integration_link.updated',
        projectId: P2,
        payload: like({ alignEntityId: E2, changedFields: ['alignEntityId'] }),
      }),
    ]);
    expect(same.events).toEqual([]);
    expect(same.rows[0].row).toMatchObject({ action: 'updated', metadata: like({ changedFields: [] }) });
  });

  it("lists and reads only what the key may see: its organization's, and a project key its project's", async () => {
    const { links } = setup();
    const a = await links.create(actor(), link());
    await links.create(actor(), link({ externalId: '43', alignEntityId: E2 }));
    await links.create(actor(), link({ externalId: '44', alignEntityType: 'user', alignEntityId: U1 }));
    const key = actor({ scope: 'project', scopedProjectId: P1 });
    const page = await links.list(key, {}, { page: 1, pageSize: 25 });
    expect(page.data.map((l) => l.externalId)).toEqual(['42']);
    expect((await links.list(actor(), { alignEntityType: 'entry' }, { page: 1, pageSize: 25 })).total).toBe(2);
    expect(await reasonOf(links.get(actor({ organizationId: OTHER_ORG }), a.resource.id as string))).toBe('not_found');
    expect(await reasonOf(links.remove(actor({ scope: 'project', scopedProjectId: P2 }), a.resource.id as string))).toBe(
      'not_found',
    );
  });

  it("matches a link another feature's externalRef upsert made (the shared links table): created false, nothing written", async () => {
    const { stores, links } = setup();
    const made = await stores.integrationLinks.insertExternalLink({
      organizationId: TEST_ORG,
      projectId: P1,
      ref: { provider: 'github', externalType: 'issue', externalId: '42' },
      alignEntityType: 'entry',
      alignEntityId: E1,
    });
    const res = await links.create(actor(), link());
    expect(res).toMatchObject({ created: false, resource: { id: made?.id } });
    expect(stores.written).toEqual([]);
    expect((await links.list(actor(), {}, { page: 1, pageSize: 25 })).total).toBe(1);
  });

  it("no cross-tenant oracle: alignEntityId of another organization's record answers as a random id (create, update)", async () => {
    const { stores, links } = setup();
    const RANDOM = '30000000-0000-4000-8000-000000000009';
    const U_FOREIGN = '40000000-0000-4000-8000-000000000002';
    stores.integrationLinks.targets.push({ type: 'user', id: U_FOREIGN, organizationId: OTHER_ORG, projectId: null });
    const mine = await links.create(actor(), link());
    const writes = stores.written.length;
    for (const [type, foreignId] of [
      ['entry', E_FOREIGN],
      ['user', U_FOREIGN],
    ] as const) {
      const body = link({ externalId: '99', alignEntityType: type });
      const theirs = await answerOf(links.create(actor(), { ...body, alignEntityId: foreignId }));
      expect(theirs, type).toMatchObject({ status: 400, reason: 'validation_error' });
      expect(await answerOf(links.create(actor(), { ...body, alignEntityId: RANDOM })), type).toEqual(theirs);
      const id = mine.resource.id as string;
      const theirsUpdated = await answerOf(links.update(actor(), id, { alignEntityType: type, alignEntityId: foreignId }));
      expect(theirsUpdated, type).toEqual(theirs);
      expect(await answerOf(links.update(actor(), id, { alignEntityType: type, alignEntityId: RANDOM })), type).toEqual(theirs);
    }
    // Their link by id: 404 whatever the update names.
    const theirLink = await links.create(actor({ organizationId: OTHER_ORG }), link({ alignEntityId: E_FOREIGN }));
    for (const alignEntityId of [E1, E_FOREIGN, RANDOM]) {
      expect(await reasonOf(links.update(actor(), theirLink.resource.id as string, { alignEntityId }))).toBe('not_found');
    }
    expect(stores.written).toHaveLength(writes + 1);
  });
});
