import type { ActorEvent } from './write.ts';

/**
 * The spec's `externalRef` and the integration links it leaves behind, as seen by
 * the features that create records through one (time entries, invites, wiki pages).
 * Pure: the SQL is in shared/external-links.ts, called by those features' stores.
 */

/** The spec's `externalRef`: identifies a record in an external system (all three non-empty). */
export interface ExternalRef {
  provider: string;
  externalType: string;
  externalId: string;
}

/** An integration_links row (every column, migrations 001 and 002). */
export interface ExternalLinkRow {
  id: string;
  organizationId: string;
  projectId: string | null;
  provider: string;
  externalType: string;
  externalId: string;
  alignEntityType: string;
  alignEntityId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What a feature writes to link one of its records to an externalRef. */
export interface NewExternalLink {
  organizationId: string;
  projectId: string | null;
  ref: ExternalRef;
  alignEntityType: string;
  alignEntityId: string;
}

/**
 * The integration-link methods a feature's store offers when its records can be
 * created through an externalRef (implemented once: externalLinkMethods, and its fake).
 */
export interface ExternalLinkMethods {
  /**
   * Serialises upserts of one externalRef in an organization for the rest of the
   * transaction, then returns its link, if one exists: two concurrent creates with
   * the same ref see each other (one creates, one matches).
   */
  lockExternalRef(organizationId: string, ref: ExternalRef): Promise<ExternalLinkRow | undefined>;
  /** The link of an externalRef in an organization, if any. */
  findExternalLink(organizationId: string, ref: ExternalRef): Promise<ExternalLinkRow | undefined>;
  /** Inserts a link; undefined when the ref is already linked (its unique key: nothing written). */
  insertExternalLink(link: NewExternalLink): Promise<ExternalLinkRow | undefined>;
}

/** Reads an `externalRef` from a validated body, if present (only its three fields). */
export function externalRefOf(body: { externalRef?: unknown }): ExternalRef | undefined {
  const ref = body.externalRef;
  if (!ref || typeof ref !== 'object') return undefined;
  const field = (name: keyof ExternalRef) => String(Reflect.get(ref, name));
  return { provider: field('provider'), externalType: field('externalType'), externalId: field('externalId') };
}

/** The payload of integration_link.created / .updated. */
export function integrationLinkPayload(row: ExternalLinkRow) {
  return {
    integrationLinkId: row.id,
    organizationId: row.organizationId,
    provider: row.provider,
    externalType: row.externalType,
    externalId: row.externalId,
    alignEntityType: row.alignEntityType,
    alignEntityId: row.alignEntityId,
  };
}

/** integration_link.created of a link a record got when first created (or first matched) through an externalRef. */
export function externalLinkCreatedEvent(link: ExternalLinkRow): ActorEvent {
  return {
    eventName: 'integration_link.created',
    entityType: 'integration_link',
    entityId: link.id,
    projectId: link.projectId,
    payload: integrationLinkPayload(link),
  };
}
