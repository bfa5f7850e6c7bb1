import type { Knex } from '@cluster/db';
import type { ExternalLinkMethods, ExternalLinkRow, ExternalRef } from './external-ref.ts';

const refColumns = (ref: ExternalRef) => ({ provider: ref.provider, externalType: ref.externalType, externalId: ref.externalId });

/**
 * The SQL of ExternalLinkMethods over `db`, for the stores of features whose
 * records can be created through an externalRef (spread into the store). For stores only.
 */
export function externalLinkMethods(db: Knex): ExternalLinkMethods {
  const find = (organizationId: string, ref: ExternalRef) =>
    db<ExternalLinkRow>('integration_links')
      .where({ organizationId, ...refColumns(ref) })
      .first();
  return {
    async lockExternalRef(organizationId, ref) {
      await db.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [
        `external-ref|${organizationId}|${ref.provider}|${ref.externalType}|${ref.externalId}`,
      ]);
      return find(organizationId, ref);
    },
    findExternalLink: find,
    async insertExternalLink(link) {
      const [row] = await db<ExternalLinkRow>('integration_links')
        .insert({
          organizationId: link.organizationId,
          projectId: link.projectId,
          ...refColumns(link.ref),
          alignEntityType: link.alignEntityType,
          alignEntityId: link.alignEntityId,
        })
        .onConflict(['organizationId', 'provider', 'externalType', 'externalId'])
        .ignore()
        .returning('*');
      return row;
    },
  };
}
