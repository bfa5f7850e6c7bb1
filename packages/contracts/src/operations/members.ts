import { ListOf, ListQuery } from '../resources/common.ts';
import { MemberCreate, MemberUpdate, ProjectMember } from '../resources/members.ts';
import type { Operation } from './operation.ts';

/** Project membership (paths of docs/decisions-api.md). */
export const memberOperations: Operation[] = [
  {
    method: 'GET',
    path: '/projects/:id/members',
    summary: 'List members of a project',
    tag: 'members',
    operation: 'cluster.core.v1.MemberService/ListMembers',
    tool: false,
    permission: 'read:project_member',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(ProjectMember) },
  },
  {
    method: 'POST',
    path: '/projects/:id/members',
    summary: 'Add a member (409 if already one)',
    tag: 'members',
    operation: 'cluster.core.v1.MemberService/AddMember',
    tool: false,
    permission: 'write:project_member',
    body: MemberCreate,
    response: { status: 201, schema: ProjectMember },
  },
  {
    method: 'PATCH',
    path: '/projects/:id/members/:memberId',
    summary: 'Update a member',
    tag: 'members',
    operation: 'cluster.core.v1.MemberService/UpdateMember',
    tool: false,
    permission: 'write:project_member',
    body: MemberUpdate,
    response: { status: 200, schema: ProjectMember },
  },
  {
    method: 'DELETE',
    path: '/projects/:id/members/:memberId',
    summary: 'Remove a member',
    tag: 'members',
    operation: 'cluster.core.v1.MemberService/RemoveMember',
    tool: false,
    permission: 'delete:project_member',
    response: { status: 204, description: 'Removed' },
  },
];
