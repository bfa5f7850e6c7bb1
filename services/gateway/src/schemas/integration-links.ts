import { Type, Body, DateTime, Uuid } from './common.ts';

const NonEmpty = Type.String({ minLength: 1 });

export const IntegrationLinkCreate = Body(
  { provider: NonEmpty, externalType: NonEmpty, externalId: NonEmpty, alignEntityType: NonEmpty, alignEntityId: Uuid },
  {
    required: ['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'],
    description: 'Integration link create body; idempotent on provider + externalType + externalId',
  },
);

export const IntegrationLinkUpdate = Body(
  { alignEntityType: NonEmpty, alignEntityId: Uuid },
  { description: 'Integration link update body: re-points the link to another internal record' },
);

export const IntegrationLink = Type.Object(
  {
    id: Uuid, organizationId: Uuid, provider: Type.String(), externalType: Type.String(), externalId: Type.String(),
    alignEntityType: Type.String(), alignEntityId: Uuid, createdAt: DateTime, updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'IntegrationLink' },
);

export const IntegrationLinkFilters = {
  provider: Type.String(), externalType: Type.String(), externalId: Type.String(), alignEntityType: Type.String(),
  alignEntityId: Uuid,
};
