import type { Knex } from '@cluster/db';
import type { Actor } from './actor.ts';
import { emit } from '../outbox/record.ts';

/** The spec's `externalRef`: identifies a record in an external system (all three non-empty). */
export interface ExternalRef {
  provider: string;
  externalType: string;
  externalId: string;
}

/** Reads an `externalRef` from a validated body, if present. */
export function externalRefOf(body: Record<string, unknown>): ExternalRef | undefined {
  const ref = body.externalRef as Partial<ExternalRef> | undefined;
  if (!ref || typeof ref !== 'object') return undefined;
  return { provider: String(ref.provider), externalType: String(ref.externalType), externalId: String(ref.externalId) };
}

/**
 * Serialises upserts of one externalRef in an organization for the rest of the
 * transaction, then returns its integration link, if one exists. Two concurrent
 * creates with the same ref therefore see each other: one creates, one matches.
 */
export async function lockExternalRef(trx: Knex.Transaction, organizationId: string, ref: ExternalRef): Promise<Record<string, unknown> | undefined> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [
    `external-ref|${organizationId}|${ref.provider}|${ref.externalType}|${ref.externalId}`,
  ]);
  return trx('integration_links')
    .where({ organizationId, provider: ref.provider, externalType: ref.externalType, externalId: ref.externalId })
    .first();
}

/** The payload of integration_link.created / .updated. */
export function integrationLinkPayload(row: Record<string, unknown>) {
  return {
    integrationLinkId: row.id, organizationId: row.organizationId, provider: row.provider, externalType: row.externalType,
    externalId: row.externalId, alignEntityType: row.alignEntityType, alignEntityId: row.alignEntityId,
  };
}

/**
 * Records the IntegrationLink of a record first created (or first matched) through
 * an externalRef, with its integration_link.created event, in the caller's
 * transaction. Undefined when another record already holds the ref.
 */
export async function createExternalLink(
  trx: Knex.Transaction,
  actor: Actor,
  ref: ExternalRef,
  alignEntityType: string,
  alignEntityId: string,
  projectId: string | null,
): Promise<Record<string, unknown> | undefined> {
  const [row] = await trx('integration_links')
    .insert({
      organizationId: actor.organizationId, projectId, provider: ref.provider, externalType: ref.externalType,
      externalId: ref.externalId, alignEntityType, alignEntityId,
    })
    .onConflict(['organizationId', 'provider', 'externalType', 'externalId'])
    .ignore()
    .returning('*');
  if (!row) return undefined;
  await emit(trx, actor.organizationId, actor, [{
    eventName: 'integration_link.created', entityType: 'integration_link', entityId: row.id, projectId,
    payload: integrationLinkPayload(row),
  }]);
  return row;
}
