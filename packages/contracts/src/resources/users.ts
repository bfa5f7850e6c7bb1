import { Type, type Static } from '@sinclair/typebox';
import { ADMIN_ROLES, ROLES } from '../permissions.ts';
import { Body, DateTime, Nullable, StringEnum, Uuid, fieldsOf, propertiesOf } from './common.ts';
import { ExternalRef, FreeObject, NonEmptyString } from './external-ref.ts';

/** Roles an invite may give: every organization role but admin and platform_admin (spec). */
export const INVITABLE_ROLES = ROLES.filter((r) => !ADMIN_ROLES.includes(r));
/** `status` of an invite answer (bulk results add `error`). */
export const INVITE_STATUSES = ['invited', 'existing', 'linked'] as const;

/** Filters of the user list. */
export const USER_FILTERS = ['role'] as const;

/** The spec's User (plus metadata and updatedAt). */
export const User = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    email: Type.String({ format: 'email' }),
    role: StringEnum(ROLES),
    organizationId: Nullable(Uuid),
    metadata: Nullable(FreeObject),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: false },
);

/** Query schemas of the user filters. */
export const UserFilters = propertiesOf(USER_FILTERS)({ role: StringEnum(ROLES) });

/** PATCH /users/:id body. */
export const UserUpdate = Body(
  { name: NonEmptyString, metadata: Nullable(FreeObject) },
  {
    description: 'User update: name and metadata only; only supplied fields change',
  },
);
export type UserUpdateBody = Static<typeof UserUpdate>;

/** Every field of a user answer, in order (User's fields): never a password hash or MFA secret. */
export const USER_FIELDS = fieldsOf(User);
/** The columns a user update may change, in the order of `changedFields`: UserUpdate's fields. */
export const USER_UPDATABLE_FIELDS = fieldsOf(UserUpdate);

/** The longest e-mail address (RFC 5321). Unbounded, a long one overflowed the unique index on users' e-mail (a 500). */
export const EMAIL_MAX = 254;

const inviteItem = {
  email: Type.String({ format: 'email', maxLength: EMAIL_MAX }),
  name: NonEmptyString,
  role: StringEnum(INVITABLE_ROLES, { default: 'user', description: 'organization role; admin and platform_admin are refused' }),
  projectIds: Type.Array(Uuid, { maxItems: 100, description: 'projects of the organization the user joins as a member' }),
  externalRef: ExternalRef,
  metadata: FreeObject,
};

/** POST /users/invite body (spec: Invite request). */
export const InviteRequest = Body(
  { ...inviteItem, sendInvite: Type.Boolean({ default: true, description: 'record an outbound invitation e-mail' }) },
  { required: ['email', 'name'], description: 'Invite request' },
);
export type InviteRequestBody = Static<typeof InviteRequest>;

/** One item of a bulk invite, validated item by item (an invalid item is reported in `results`). */
export const BulkInviteItem = Body(inviteItem, { required: ['email', 'name'], description: 'Bulk invite item' });
export type BulkInviteItemBody = Static<typeof BulkInviteItem>;

/** POST /users/bulk-invite body (spec: Bulk invite request). */
export const BulkInviteRequest = Body(
  {
    // Items are checked one by one against BulkInviteItem in the route, so a bad item is an error result, not a 400.
    invites: Type.Array(
      Type.Unknown({
        description: 'a Bulk invite item: email and name required; role, projectIds, externalRef, metadata optional',
      }),
      {
        minItems: 1,
        maxItems: 50,
        description: 'Each item is validated on its own; an invalid one becomes an `error` result and the others still run.',
      },
    ),
    sendInvite: Type.Boolean({ default: false }),
  },
  { required: ['invites'], description: 'Bulk invite request' },
);
export type BulkInviteRequestBody = Static<typeof BulkInviteRequest>;

/** The spec's Invite response. */
export const InviteResponse = Type.Object({
  userId: Uuid,
  inviteId: Nullable(Uuid),
  created: Type.Boolean(),
  status: StringEnum(INVITE_STATUSES),
});

/** The spec's Bulk invite response. */
export const BulkInviteResponse = Type.Object({
  results: Type.Array(
    Type.Object({
      email: Type.String(),
      status: StringEnum([...INVITE_STATUSES, 'error']),
      userId: Nullable(Uuid),
      inviteId: Nullable(Uuid),
      error: Nullable(Type.String()),
    }),
  ),
  successCount: Type.Integer(),
  failureCount: Type.Integer(),
});
