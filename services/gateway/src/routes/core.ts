import { ADMIN_ROLES } from '@cluster/contracts';
import { defineRoutes } from '../http/route.ts';
import { Type, ListOf, ListQuery, Nullable, StringEnum, Uuid, DateTime } from '../schemas/common.ts';
import { Project, ProjectCreate, ProjectFilters, ProjectUpdate } from '../schemas/projects.ts';
import { created, list, listArgs, noContent, ok } from './helpers.ts';

const Me = Type.Object({
  apiKeyId: Uuid, keyName: Nullable(Type.String()), keyPrefix: Nullable(Type.String()), organizationId: Uuid,
  scope: StringEnum(['organization', 'project']), scopedProjectId: Nullable(Uuid),
  permissions: Nullable(Type.Array(Type.String())), createdByUserId: Uuid, lastUsedAt: Nullable(DateTime),
});

const AuditEvent = Type.Object({
  id: Uuid, entityType: Type.String(), action: Type.String(), entityId: Type.String(), entityName: Nullable(Type.String()),
  actorId: Nullable(Uuid), metadata: Nullable(Type.Object({}, { additionalProperties: true })), createdAt: DateTime,
});
const AuditQuery = ListQuery({ entityType: Type.String(), action: Type.String(), actorId: Type.String() });

/** Identity, projects and audit events. */
export const coreRoutes = defineRoutes([
  {
    method: 'GET', path: '/me', summary: 'The API key actor', tag: 'identity',
    response: { status: 200, schema: Me },
    handler: async ({ actor, clients }) => ok((await clients.auth.getMe({ actor })).resource),
  },
  {
    method: 'GET', path: '/projects', summary: 'List projects', tag: 'projects', permission: 'read:project',
    query: ListQuery(ProjectFilters), response: { status: 200, schema: ListOf(Project) },
    handler: async (input) => list(await input.clients.projects.listProjects(listArgs(input))),
  },
  {
    method: 'POST', path: '/projects', summary: 'Create a project', tag: 'projects', permission: 'write:project',
    orgKeyOnly: true, body: ProjectCreate, response: { status: 201, schema: Project },
    handler: async ({ actor, body, clients }) => created((await clients.projects.createProject({ actor, body: body as never })).resource),
  },
  {
    method: 'GET', path: '/projects/:id', summary: 'Get a project', tag: 'projects', permission: 'read:project',
    response: { status: 200, schema: Project },
    handler: async ({ actor, params, clients }) => ok((await clients.projects.getProject({ actor, id: params.id })).resource),
  },
  {
    method: 'PATCH', path: '/projects/:id', summary: 'Update a project', tag: 'projects', permission: 'write:project',
    body: ProjectUpdate, response: { status: 200, schema: Project },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.projects.updateProject({ actor, id: params.id, body: body as never })).resource),
  },
  {
    method: 'DELETE', path: '/projects/:id', summary: 'Delete a project', tag: 'projects', permission: 'delete:project',
    roles: ADMIN_ROLES, response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.projects.deleteProject({ actor, id: params.id });
      return noContent();
    },
  },
  {
    method: 'GET', path: '/audit-events', summary: 'List audit events', tag: 'audit', permission: 'read:audit',
    query: AuditQuery, response: { status: 200, schema: ListOf(AuditEvent) },
    handler: async (input) => list(await input.clients.audit.listAuditEvents(listArgs(input))),
  },
  {
    method: 'GET', path: '/projects/:id/audit-events', summary: 'List audit events of a project', tag: 'audit',
    permission: 'read:audit', query: AuditQuery, response: { status: 200, schema: ListOf(AuditEvent) },
    handler: async (input) => list(await input.clients.audit.listAuditEvents(listArgs(input, input.params.id))),
  },
]);
