import { Type } from '@sinclair/typebox';

/** A string that is not empty and not only whitespace ("non-empty" of the spec). */
export const NonEmptyString = Type.String({ minLength: 1, pattern: '\\S' });

/**
 * The spec's `externalRef` (TimeEntryCreate, WikiPage create, invites): provider,
 * externalType and externalId, all required and non-empty. It makes a create an
 * idempotent upsert keyed on the three within the organization.
 */
export const ExternalRef = Type.Object(
  { provider: NonEmptyString, externalType: NonEmptyString, externalId: NonEmptyString },
  {
    additionalProperties: false,
    description: 'Identifies the record in an external system; makes the create an idempotent upsert',
  },
);

/** A free-form JSON object (metadata). */
export const FreeObject = Type.Object({}, { additionalProperties: true });
