import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import { ROLES } from './permissions.ts';
import { ENTRY_STATUSES, ENTRY_TYPES } from './resources/entries.ts';
import { PROJECT_STATUSES } from './resources/projects.ts';
import { RELEASE_STATUSES, RELEASE_TYPES } from './resources/releases.ts';
import { TIME_ENTRY_STATUSES } from './resources/time-entries.ts';
import { INVITE_STATUSES } from './resources/users.ts';
import { Nullable, StringEnum } from './resources/common.ts';

// The JSON Schemas of the payloads of the events the cluster emits (the event catalogue,
// event-catalogue.ts). They are exact: every field the code writes is listed and required,
// and no other field is allowed, so the end-to-end test (test/event-catalogue.test.ts)
// fails when an event's payload and its schema part.

const Id = Type.String({ format: 'uuid' });
const When = Type.String({ format: 'date-time' });
const Text = Type.String();
const ChangedFields = Type.Array(Type.String(), { description: 'the fields that really changed' });

/** A payload schema: `fields` plus `occurredAt` (every payload has it), closed to other fields. */
export function Payload(fields: TProperties, description?: string): TObject {
  return Type.Object(
    { ...fields, occurredAt: Type.String({ format: 'date-time', description: 'equals the envelope occurredAt' }) },
    { additionalProperties: false, ...(description ? { description } : {}) },
  );
}

/** Fields of every entry.* event ("entry base"). */
export const entryBase = {
  entryId: Id,
  projectId: Id,
  title: Text,
  type: StringEnum(ENTRY_TYPES),
  status: StringEnum(ENTRY_STATUSES, { description: 'the current status' }),
};

/** cost.approved / cost.rejected: not the entry base (no type, no status). */
export function costPayload(decision: 'approved' | 'rejected'): TObject {
  return Payload({
    entryId: Id,
    projectId: Id,
    title: Text,
    costApprovalStatus: Type.Literal(decision),
    previousCostApprovalStatus: Nullable(Text),
    committedCost: Nullable(Type.String({ description: 'decimal as text' })),
  });
}

/** Fields of every time.* event ("time base"). */
export const timeBase = {
  timeEntryId: Id,
  organizationId: Id,
  projectId: Id,
  userId: Id,
  entryId: Nullable(Id),
  workDate: Type.String({ format: 'date' }),
  hours: Type.String({ pattern: '^\\d+\\.\\d{2}$', description: '2 decimals, e.g. "2.50"' }),
  minutes: Type.Integer(),
  status: StringEnum(TIME_ENTRY_STATUSES),
};

/** Fields of user.invited, user.linked and user.updated ("user base"). */
export const userBase = {
  userId: Id,
  organizationId: Id,
  email: Text,
  name: Text,
  role: StringEnum(ROLES),
  actorId: Nullable(Id),
};

/** Fields of every project_member.* event. */
export const memberBase = { memberId: Id, projectId: Id, userId: Id, roleOverride: Nullable(Text), organizationId: Id };

/** Fields of every wiki_page.* event (never the content). */
export const wikiBase = { wikiPageId: Id, projectId: Id, organizationId: Id, title: Text };

/** Fields of every integration_link.* event. */
export const linkBase = {
  integrationLinkId: Id,
  organizationId: Id,
  provider: Text,
  externalType: Text,
  externalId: Text,
  alignEntityType: Text,
  alignEntityId: Text,
};

/** Fields of every project.* event (internal). */
export const projectBase = { projectId: Id, name: Text, status: StringEnum(PROJECT_STATUSES), organizationId: Id };

/** Fields of webhook.subscription.* events: the subscription as it is, never its secret. */
export const subscriptionBase = {
  subscriptionId: Id,
  destinationUrl: Type.String({ format: 'uri' }),
  eventNames: Type.Array(Text),
  enabled: Type.Boolean(),
  description: Nullable(Text),
};

/** Fields of every code-host event (commit.linked, pr.*, ci.run.attributed): the entry and the repository ("code base"). */
export const codeBase = {
  entryId: Id,
  projectId: Id,
  entryNumber: Type.Integer({ minimum: 1 }),
  provider: Type.String({ description: 'github' }),
  repository: Type.String({ description: 'owner/name' }),
};

/** Release fields. */
export const release = {
  releaseId: Id,
  projectId: Id,
  name: Text,
  status: StringEnum(RELEASE_STATUSES),
  type: StringEnum(RELEASE_TYPES),
  version: Nullable(Text),
};

/** user.bulk_invited's list of users. */
export const bulkUsers = Type.Array(
  Type.Object(
    { userId: Id, email: Text, status: StringEnum(INVITE_STATUSES), created: Type.Boolean() },
    { additionalProperties: false },
  ),
);

export { Id, When, Text, ChangedFields };

/** The shared field sets docs/events.md names instead of listing them in every row. */
export const NAMED_PAYLOAD_BASES: readonly { name: string; fields: TProperties }[] = [
  { name: 'entry base', fields: entryBase },
  { name: 'time base', fields: timeBase },
  { name: 'user base', fields: userBase },
  { name: 'code base', fields: codeBase },
];
