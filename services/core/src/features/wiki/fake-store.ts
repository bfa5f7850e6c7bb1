import { randomUUID } from 'node:crypto';
import type { Page, PageArgs } from '@cluster/platform';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import { fakeExternalLinkMethods } from '../../shared/fake-external-links.ts';
import type { WikiPageRow, WikiStore } from './store.ts';

/** An in-memory WikiStore for unit tests of the rules (no Postgres). Reads return copies; `links` is the shared fake link table. */
export function createFakeWikiStore(
  rows: WikiPageRow[] = [],
  links: ExternalLinkRow[] = [],
): WikiStore & { rows: WikiPageRow[] } {
  const copy = (row: WikiPageRow | undefined) => row && { ...row };
  return {
    ...fakeExternalLinkMethods(links),
    rows,
    async list(projectId, { page, pageSize }: PageArgs): Promise<Page<WikiPageRow>> {
      const all = rows.filter((r) => r.projectId === projectId);
      return {
        data: all.slice((page - 1) * pageSize, page * pageSize).map((r) => ({ ...r })),
        page,
        pageSize,
        total: all.length,
      };
    },
    async find(id) {
      return copy(rows.find((r) => r.id === id));
    },
    async findInOrganization(organizationId, id) {
      return copy(rows.find((r) => r.id === id && r.organizationId === organizationId));
    },
    async insert(values) {
      const now = new Date();
      const row: WikiPageRow = { title: '', content: null, ...values, id: randomUUID(), createdAt: now, updatedAt: now };
      rows.push(row);
      return { ...row };
    },
    async update(id, values) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`fake: no wiki page ${id}`);
      Object.assign(row, values, { updatedAt: new Date() });
      return { ...row };
    },
    async remove(organizationId, id) {
      rows.splice(
        rows.findIndex((r) => r.id === id),
        1,
      );
      for (let i = links.length - 1; i >= 0; i--) {
        const l = links[i];
        if (l.organizationId === organizationId && l.alignEntityType === 'wiki_page' && l.alignEntityId === id)
          links.splice(i, 1);
      }
    },
  };
}
