import { Type } from '@sinclair/typebox';

/** A string that is not empty and not only whitespace ("non-empty" of the spec). */
export const NonEmptyString = Type.String({ minLength: 1, pattern: '\\S' });

/**
 * The longest provider, externalType or externalSystem (characters). These and the external id make unique keys
 * (integration links, synchronised time entries), and a Postgres btree entry holds at most 2704 bytes: two names and
 * an id of up to 4 UTF-8 bytes a character, with the organization id, stay under it (longer was a 500).
 */
export const EXTERNAL_NAME_MAX = 100;
/** The longest external id (characters); see EXTERNAL_NAME_MAX. */
export const EXTERNAL_ID_MAX = 255;

/** A name of an external system or record type in a unique key: non-empty, at most EXTERNAL_NAME_MAX characters. */
const ExternalName = Type.String({ minLength: 1, maxLength: EXTERNAL_NAME_MAX, pattern: '\\S' });
/** An id in an external system, in a unique key: non-empty, at most EXTERNAL_ID_MAX characters. */
const ExternalId = Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, pattern: '\\S' });

/**
 * The spec's `externalRef` (TimeEntryCreate, WikiPage create, invites): provider,
 * externalType and externalId, all required and non-empty. It makes a create an
 * idempotent upsert keyed on the three within the organization.
 */
export const ExternalRef = Type.Object(
  { provider: ExternalName, externalType: ExternalName, externalId: ExternalId },
  {
    additionalProperties: false,
    description: 'Identifies the record in an external system; makes the create an idempotent upsert',
  },
);

/** A free-form JSON object (metadata). */
export const FreeObject = Type.Object({}, { additionalProperties: true });
