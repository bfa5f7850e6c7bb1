import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import { fakeExternalLinkMethods } from '../../shared/fake-external-links.ts';
import { createFakeTable } from '../../shared/fake-table.ts';
import type { WikiPageRow, WikiStore } from './store.ts';

/** An in-memory WikiStore for unit tests of the rules (no Postgres). Reads return copies; `links` is the shared fake link table. */
export function createFakeWikiStore(
  rows: WikiPageRow[] = [],
  links: ExternalLinkRow[] = [],
): WikiStore & { rows: WikiPageRow[] } {
  const table = createFakeTable<WikiPageRow>({ rows, defaults: { title: '', content: null } });
  return {
    ...fakeExternalLinkMethods(links),
    rows,
    async list(projectId, page) {
      return table.page((r) => r.projectId === projectId, page);
    },
    find: table.methods.find,
    async findInOrganization(organizationId, id) {
      const row = table.find(id);
      return row?.organizationId === organizationId ? row : undefined;
    },
    insert: table.methods.insert,
    update: table.methods.update,
    async remove(organizationId, id) {
      table.remove(id);
      for (let i = links.length - 1; i >= 0; i--) {
        const l = links[i];
        if (l.organizationId === organizationId && l.alignEntityType === 'wiki_page' && l.alignEntityId === id)
          links.splice(i, 1);
      }
    },
  };
}
