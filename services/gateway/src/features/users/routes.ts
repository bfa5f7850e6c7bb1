import { UserService } from '@cluster/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import {
  ADMIN_ROLES,
  BulkInviteItem,
  BulkInviteRequest,
  BulkInviteResponse,
  InviteRequest,
  InviteResponse,
  ListOf,
  ListQuery,
  User,
  UserFilters,
  UserUpdate,
} from '@cluster/contracts';
import { DomainError } from '@cluster/platform';
import { list, listArgs, ok, upserted } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';
import { validateBody } from '../../http/validate.ts';

/** Validates one bulk item on its own: `{index, item}` when valid, `{index, item?, error}` when not. */
function checkItem(item: unknown, index: number): JsonObject {
  const asObject = item !== null && typeof item === 'object' && !Array.isArray(item) ? toStruct(item) : undefined;
  try {
    validateBody(BulkInviteItem, item);
    return { index, item: asObject ?? null };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const problems = (err.details?.errors ?? []) as { path: string; message: string }[];
    return {
      index,
      ...(asObject ? { item: asObject } : {}),
      error: problems.map((p) => `${p.path || '/'}: ${p.message}`).join('; '),
    };
  }
}

/** Users of the organization and invites. */
export const userRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/users',
    summary: 'List users of the organization',
    tag: 'users',
    service: UserService,
    rpc: 'listUsers',
    tool: false,
    permission: 'read:user',
    orgKeyOnly: true,
    query: ListQuery(UserFilters),
    response: { status: 200, schema: ListOf(User) },
    handler: async (input) => list(await input.call(listArgs(input))),
  }),
  defineRoute({
    method: 'POST',
    path: '/users/invite',
    summary: 'Invite a user (idempotent with externalRef)',
    tag: 'users',
    service: UserService,
    rpc: 'inviteUser',
    tool: false,
    permission: 'write:user',
    roles: ADMIN_ROLES,
    orgKeyOnly: true,
    body: InviteRequest,
    response: { status: 201, schema: InviteResponse, description: 'Created (201) or an existing user (200, created: false)' },
    handler: async ({ actor, body, call }) => {
      return upserted(await call({ actor, body: toStruct(body) }));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/users/bulk-invite',
    summary: 'Invite 1 to 50 users; per-item results',
    tag: 'users',
    service: UserService,
    rpc: 'bulkInvite',
    tool: false,
    permission: 'write:user',
    roles: ADMIN_ROLES,
    orgKeyOnly: true,
    body: BulkInviteRequest,
    response: { status: 200, schema: BulkInviteResponse },
    handler: async ({ actor, body, call }) => {
      const invites = body.invites.map(checkItem);
      const res = await call({ actor, body: { invites, sendInvite: body.sendInvite === true } });
      return ok(res.resource);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/users/:id',
    summary: 'Get a user',
    tag: 'users',
    service: UserService,
    rpc: 'getUser',
    tool: false,
    permission: 'read:user',
    response: { status: 200, schema: User },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/users/:id',
    summary: "Update a user's name or metadata",
    tag: 'users',
    service: UserService,
    rpc: 'updateUser',
    tool: false,
    permission: 'write:user',
    body: UserUpdate,
    response: { status: 200, schema: User },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
];
