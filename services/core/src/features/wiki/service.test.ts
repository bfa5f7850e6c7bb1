import { describe, expect, it } from 'vitest';
import type { WikiPageCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf, testActor, unvalidated, like } from '../../shared/test-kit.ts';
import { createWikiService } from './service.ts';

async function setUp() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });
  const other = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Other', description: '' });
  return { stores, project, other, wiki: createWikiService(stores) };
}

const externalRef = { provider: 'confluence', externalType: 'page', externalId: 'C-1' };

describe('wiki rules (fake stores)', () => {
  it('creates a page: audited, wiki_page.created with the spec payload; only title and content are taken', async () => {
    const { stores, project, wiki } = await setUp();
    // creatorId: set by the server, so the gateway refuses it; the core must ignore it all the same.
    const body = unvalidated<WikiPageCreateBody>({ title: 'Home', content: 'hi', creatorId: 'x' });
    const { resource, created } = await wiki.create(testActor(), project.id, body);
    expect(created).toBe(true);
    expect(Object.keys(resource).sort()).toEqual(['content', 'createdAt', 'id', 'projectId', 'title', 'updatedAt']);
    expect(stores.wiki.rows[0]).toMatchObject({ creatorId: 'u1', organizationId: TEST_ORG });
    const [write] = stores.written;
    expect(write.rows[0].row).toMatchObject({
      entityType: 'wiki_page',
      action: 'created',
      entityName: 'Home',
      projectId: project.id,
    });
    expect(write.events).toEqual([
      like({
        eventName: 'wiki_page.created',
        payload: { wikiPageId: resource.id, projectId: project.id, organizationId: TEST_ORG, title: 'Home' },
      }),
    ]);
  });

  it('makes a create with an externalRef an upsert: link and page once, the same page after; another project: 409', async () => {
    const { stores, project, other, wiki } = await setUp();
    const first = await wiki.create(testActor(), project.id, { title: 'Home', externalRef });
    const again = await wiki.create(testActor(), project.id, { title: 'Changed', externalRef });
    expect(again).toEqual({ resource: first.resource, created: false });
    expect(stores.written.flatMap((w) => w.events.map((e) => e.eventName))).toEqual([
      'integration_link.created',
      'wiki_page.created',
    ]);
    expect(await reasonOf(wiki.create(testActor(), other.id, { title: 'Elsewhere', externalRef }))).toBe('conflict');
    expect(stores.wiki.rows).toHaveLength(1);
  });

  it('emits wiki_page.updated with the changed fields only when something changed; deleting frees its externalRef', async () => {
    const { stores, project, wiki } = await setUp();
    const { resource } = await wiki.create(testActor(), project.id, { title: 'Home', content: 'a', externalRef });
    const id = resource.id as string;
    await wiki.update(testActor(), id, { title: 'Home', content: 'b' });
    await wiki.update(testActor(), id, { content: 'b' });
    await wiki.remove(testActor(), id);
    const [, changed, unchanged, removed] = stores.written;
    expect(changed.events.map((e) => [e.eventName, e.payload.changedFields])).toEqual([['wiki_page.updated', ['content']]]);
    expect(unchanged.events).toEqual([]);
    expect(removed.events.map((e) => e.eventName)).toEqual(['wiki_page.deleted']);
    expect(removed.rows[0].row).toMatchObject({ action: 'deleted', entityId: id, entityName: 'Home' });
    const fresh = await wiki.create(testActor(), project.id, { title: 'Home again', externalRef });
    expect(fresh.created).toBe(true);
    expect(fresh.resource.id).not.toBe(id);
  });

  it("hides another organization's page and, from a project key, another project's page (404); lists are scoped (403)", async () => {
    const { stores, project, other, wiki } = await setUp();
    const mine = (await wiki.create(testActor(), project.id, { title: 'A' })).resource;
    const theirs = (await wiki.create(testActor(), other.id, { title: 'B' })).resource;
    expect(await reasonOf(wiki.get(testActor({ organizationId: OTHER_ORG }), mine.id as string))).toBe('not_found');
    const key = testActor({ scope: 'project', scopedProjectId: project.id });
    expect((await wiki.get(key, mine.id as string)).title).toBe('A');
    expect(await reasonOf(wiki.get(key, theirs.id as string))).toBe('not_found');
    expect(await reasonOf(wiki.update(key, theirs.id as string, { title: 'x' }))).toBe('not_found');
    expect(await reasonOf(wiki.remove(key, theirs.id as string))).toBe('not_found');
    expect(await reasonOf(wiki.list(key, other.id, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    expect(await reasonOf(wiki.create(key, other.id, { title: 'C' }))).toBe('scope_violation');
    expect(stores.written).toHaveLength(2);
  });
});
