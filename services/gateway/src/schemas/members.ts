import { ROLES } from '@cluster/contracts';
import { Type, StringEnum, Nullable, Body, DateTime, Uuid } from './common.ts';
import { FreeObject } from './external-ref.ts';

const RoleOverride = Nullable(StringEnum(ROLES, { description: 'null: the member inherits the organization role' }));

/** The spec's ProjectMember. */
export const ProjectMember = Type.Object(
  { id: Uuid, projectId: Uuid, userId: Uuid, roleOverride: Nullable(Type.String()), metadata: Nullable(FreeObject), createdAt: DateTime },
  { additionalProperties: false },
);

/** POST /projects/:id/members body. */
export const MemberCreate = Body(
  { userId: Uuid, roleOverride: RoleOverride, metadata: Nullable(FreeObject) },
  { required: ['userId'], description: 'Add a user of the organization to the project' },
);

/** PATCH /projects/:id/members/:memberId body. */
export const MemberUpdate = Body(
  { roleOverride: RoleOverride, metadata: Nullable(FreeObject) },
  { description: 'Member update: only supplied fields change' },
);
