import { MemberService } from '@cluster/proto';
import { ListOf, ListQuery, MemberCreate, MemberUpdate, ProjectMember } from '@cluster/contracts';
import { created, list, listArgs, noContent, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Project membership (paths of docs/decisions-api.md). */
export const memberRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/members',
    summary: 'List members of a project',
    tag: 'members',
    service: MemberService,
    rpc: 'listMembers',
    tool: false,
    permission: 'read:project_member',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(ProjectMember) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/members',
    summary: 'Add a member (409 if already one)',
    tag: 'members',
    service: MemberService,
    rpc: 'addMember',
    tool: false,
    permission: 'write:project_member',
    body: MemberCreate,
    response: { status: 201, schema: ProjectMember },
    handler: async ({ actor, params, body, call }) =>
      created((await call({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/members/:memberId',
    summary: 'Update a member',
    tag: 'members',
    service: MemberService,
    rpc: 'updateMember',
    tool: false,
    permission: 'write:project_member',
    body: MemberUpdate,
    response: { status: 200, schema: ProjectMember },
    handler: async ({ actor, params, body, call }) =>
      ok((await call({ actor, parentId: params.id, id: params.memberId, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/members/:memberId',
    summary: 'Remove a member',
    tag: 'members',
    service: MemberService,
    rpc: 'removeMember',
    tool: false,
    permission: 'delete:project_member',
    response: { status: 204, description: 'Removed' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, parentId: params.id, id: params.memberId });
      return noContent();
    },
  }),
];
