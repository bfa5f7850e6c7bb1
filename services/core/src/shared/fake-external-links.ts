import { randomUUID } from 'node:crypto';
import { fakeNow } from './fake-table.ts';
import type { ExternalLinkMethods, ExternalLinkRow, ExternalRef } from './external-ref.ts';

const sameRef = (row: ExternalLinkRow, organizationId: string, ref: ExternalRef) =>
  row.organizationId === organizationId &&
  row.provider === ref.provider &&
  row.externalType === ref.externalType &&
  row.externalId === ref.externalId;

/** In-memory ExternalLinkMethods over `rows` (the fake stores share one table of links). Reads return copies. */
export function fakeExternalLinkMethods(rows: ExternalLinkRow[]): ExternalLinkMethods {
  const find = async (organizationId: string, ref: ExternalRef) => {
    const row = rows.find((r) => sameRef(r, organizationId, ref));
    return row && { ...row };
  };
  return {
    lockExternalRef: find,
    findExternalLink: find,
    async insertExternalLink(link) {
      if (rows.some((r) => sameRef(r, link.organizationId, link.ref))) return undefined;
      const at = fakeNow();
      const row: ExternalLinkRow = {
        id: randomUUID(),
        organizationId: link.organizationId,
        projectId: link.projectId,
        ...link.ref,
        alignEntityType: link.alignEntityType,
        alignEntityId: link.alignEntityId,
        createdAt: at,
        updatedAt: at,
      };
      rows.push(row);
      return { ...row };
    },
  };
}
