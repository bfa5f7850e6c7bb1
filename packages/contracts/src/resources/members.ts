import { Type, type Static } from '@sinclair/typebox';
import { ROLES } from '../permissions.ts';
import { Body, DateTime, Nullable, StringEnum, Uuid, fieldsOf } from './common.ts';
import { FreeObject } from './external-ref.ts';

const RoleOverride = Nullable(StringEnum(ROLES, { description: 'null: the member inherits the organization role' }));

/** The spec's ProjectMember. */
export const ProjectMember = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    userId: Uuid,
    roleOverride: Nullable(Type.String()),
    metadata: Nullable(FreeObject),
    createdAt: DateTime,
  },
  { additionalProperties: false },
);

const memberFields = { roleOverride: RoleOverride, metadata: Nullable(FreeObject) };

/** POST /projects/:id/members body. */
export const MemberCreate = Body(
  { userId: Uuid, ...memberFields },
  { required: ['userId'], description: 'Add a user of the organization to the project' },
);
export type MemberCreateBody = Static<typeof MemberCreate>;

/** PATCH /projects/:id/members/:memberId body. */
export const MemberUpdate = Body(memberFields, { description: 'Member update: only supplied fields change' });
export type MemberUpdateBody = Static<typeof MemberUpdate>;

/** Every field of a project member answer, in order: ProjectMember's fields. */
export const MEMBER_FIELDS = fieldsOf(ProjectMember);
/** The columns a member body may set besides userId, in the order of `changedFields`: MemberUpdate's fields. */
export const MEMBER_UPDATABLE_FIELDS = fieldsOf(MemberUpdate);
