import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, Uuid, fieldsOf, propertiesOf } from './common.ts';
import { EXTERNAL_ID_MAX, EXTERNAL_NAME_MAX } from './external-ref.ts';

/** Every column an integration link create sets; the order is the order of `changedFields`. */
export const INTEGRATION_LINK_WRITABLE_FIELDS = [
  'provider',
  'externalType',
  'externalId',
  'alignEntityType',
  'alignEntityId',
] as const;
export type IntegrationLinkWritableField = (typeof INTEGRATION_LINK_WRITABLE_FIELDS)[number];
/** The columns an update may change: it re-points the link, never the external record. */
export const INTEGRATION_LINK_UPDATABLE_FIELDS = ['alignEntityType', 'alignEntityId'] as const;
/** Filters of the integration link list, each an exact match on its column. */
export const INTEGRATION_LINK_FILTERS = ['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'] as const;

const NonEmpty = Type.String({ minLength: 1 });
const linkFields = propertiesOf(INTEGRATION_LINK_WRITABLE_FIELDS)({
  // The unique key of a link: bounded so that it fits a btree entry (EXTERNAL_NAME_MAX).
  provider: Type.String({ minLength: 1, maxLength: EXTERNAL_NAME_MAX }),
  externalType: Type.String({ minLength: 1, maxLength: EXTERNAL_NAME_MAX }),
  externalId: Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX }),
  alignEntityType: NonEmpty,
  alignEntityId: Uuid,
});

/** POST /integration-links body. */
export const IntegrationLinkCreate = Body(linkFields, {
  required: ['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'],
  description: 'Integration link create body; idempotent on provider + externalType + externalId',
});
export type IntegrationLinkCreateBody = Static<typeof IntegrationLinkCreate>;

/** PATCH /integration-links/:id body. */
export const IntegrationLinkUpdate = Body(
  propertiesOf(INTEGRATION_LINK_UPDATABLE_FIELDS)({
    alignEntityType: linkFields.alignEntityType,
    alignEntityId: linkFields.alignEntityId,
  }),
  { description: 'Integration link update body: re-points the link to another internal record' },
);
export type IntegrationLinkUpdateBody = Static<typeof IntegrationLinkUpdate>;

/** The properties of an IntegrationLink but updatedAt: also the link as a time entry lists it (TimeEntryLink). */
export const integrationLinkProperties = {
  id: Uuid,
  organizationId: Uuid,
  provider: Type.String(),
  externalType: Type.String(),
  externalId: Type.String(),
  alignEntityType: Type.String(),
  alignEntityId: Uuid,
  createdAt: DateTime,
};

/** The spec's IntegrationLink. */
export const IntegrationLink = Type.Object(
  { ...integrationLinkProperties, updatedAt: DateTime },
  { additionalProperties: true, description: 'IntegrationLink' },
);
/** Every field of an answered integration link, in order: IntegrationLink's fields. Never projectId. */
export const INTEGRATION_LINK_FIELDS = fieldsOf(IntegrationLink);
/** The fields of a link as a time entry lists it (TimeEntryLink): INTEGRATION_LINK_FIELDS but updatedAt. */
export const TIME_ENTRY_LINK_FIELDS = INTEGRATION_LINK_FIELDS.filter((f) => f !== 'updatedAt');

/** Query schemas of the integration link filters. */
export const IntegrationLinkFilters = propertiesOf(INTEGRATION_LINK_FILTERS)({
  provider: Type.String(),
  externalType: Type.String(),
  externalId: Type.String(),
  alignEntityType: Type.String(),
  alignEntityId: Uuid,
});
