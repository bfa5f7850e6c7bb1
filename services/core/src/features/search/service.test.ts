import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, testActor as actor } from '../../shared/test-kit.ts';
import { createSearchService, SEARCH_LIMIT } from './service.ts';

const P1 = '20000000-0000-4000-8000-000000000001';
const P2 = '20000000-0000-4000-8000-000000000002';

function setup() {
  const stores = createFakeStores();
  const doc = (type: string, id: string, title: string, projectId: string, organizationId = TEST_ORG) =>
    stores.search.documents.push({ type, id, title, projectId, organizationId, body: '' });
  // Equal matches come newest first: the guide was written before the entry.
  doc('wiki_page', 'w1', 'Login guide', P2);
  doc('entry', 'e1', 'Login broken', P1);
  doc('release', 'r1', 'Login release', P1, OTHER_ORG);
  return { stores, search: createSearchService(stores) };
}

describe('search rules (fake stores)', () => {
  it('requires a non-blank q (400)', async () => {
    const { search } = setup();
    for (const q of [undefined, '', '   ', 5]) {
      await expect(search.search(actor(), q)).rejects.toMatchObject({
        reason: 'validation_error',
        details: { errors: [{ path: 'q', message: 'is required' }] },
      });
    }
  });

  it("answers the spec's SearchResult with the record's API path, in the key's organization, and a project key's project", async () => {
    const { search } = setup();
    expect(await search.search(actor(), 'login')).toEqual([
      { type: 'entry', id: 'e1', title: 'Login broken', projectId: P1, url: '/entries/e1' },
      { type: 'wiki_page', id: 'w1', title: 'Login guide', projectId: P2, url: '/wiki-pages/w1' },
    ]);
    expect((await search.search(actor({ scope: 'project', scopedProjectId: P2 }), 'login')).map((r) => r.id)).toEqual(['w1']);
  });

  it('asks the store for at most SEARCH_LIMIT results', async () => {
    const { stores, search } = setup();
    for (let i = 0; i < SEARCH_LIMIT + 5; i++)
      stores.search.documents.push({
        type: 'entry',
        id: `x${i}`,
        title: 'many',
        projectId: P1,
        organizationId: TEST_ORG,
        body: '',
      });
    expect(await search.search(actor(), 'many')).toHaveLength(SEARCH_LIMIT);
  });
});
