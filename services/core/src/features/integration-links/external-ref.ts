import type { Actor } from '@cluster/proto';
import { apiWrite } from '../../shared/write.ts';
import { integrationLinkEvent } from './events.ts';
import type { IntegrationLinkRow, IntegrationLinkStore } from './store.ts';
import type { WriteRecord } from '@cluster/outbox';

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

/** The stores an externalRef upsert needs: any feature's transaction Stores fit. */
export interface ExternalLinkStores {
  integrationLinks: IntegrationLinkStore;
  record(write: WriteRecord): Promise<void>;
}

/**
 * Records the IntegrationLink of a record first created (or first matched) through
 * an externalRef, with its integration_link.created event (no audit record of its
 * own: the record's write has one), in the transaction of `tx`. Undefined when
 * another record already holds the ref. Call `tx.integrationLinks.lockRef` first to
 * serialise concurrent upserts of one ref.
 */
export async function linkExternalRef(
  tx: ExternalLinkStores,
  actor: Actor,
  ref: ExternalRef,
  alignEntityType: string,
  alignEntityId: string,
  projectId: string | null,
): Promise<IntegrationLinkRow | undefined> {
  const row = await tx.integrationLinks.insertIfAbsent({
    organizationId: actor.organizationId, projectId, provider: ref.provider, externalType: ref.externalType,
    externalId: ref.externalId, alignEntityType, alignEntityId,
  });
  if (!row) return undefined;
  await tx.record(apiWrite(actor, null, [integrationLinkEvent('integration_link.created', row)]));
  return row;
}
