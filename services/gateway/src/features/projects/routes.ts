import { ProjectService } from '@cluster/proto';
import { ADMIN_ROLES, ListOf, ListQuery, Project, ProjectCreate, ProjectFilters, ProjectUpdate } from '@cluster/contracts';
import { created, list, listArgs, noContent, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Projects of the organization. */
export const projectRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/projects',
    summary: 'List projects',
    tag: 'projects',
    service: ProjectService,
    rpc: 'listProjects',
    tool: { name: 'list_projects', title: 'List projects', description: 'Projects the key can see, newest first.' },
    permission: 'read:project',
    query: ListQuery(ProjectFilters),
    response: { status: 200, schema: ListOf(Project) },
    handler: async (input) => list(await input.call(listArgs(input))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects',
    summary: 'Create a project',
    tag: 'projects',
    service: ProjectService,
    rpc: 'createProject',
    tool: false,
    permission: 'write:project',
    orgKeyOnly: true,
    body: ProjectCreate,
    response: { status: 201, schema: Project },
    handler: async ({ actor, body, call }) => created((await call({ actor, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id',
    summary: 'Get a project',
    tag: 'projects',
    service: ProjectService,
    rpc: 'getProject',
    tool: { name: 'get_project', title: 'Get a project', description: 'One project by id.' },
    permission: 'read:project',
    response: { status: 200, schema: Project },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id',
    summary: 'Update a project',
    tag: 'projects',
    service: ProjectService,
    rpc: 'updateProject',
    tool: false,
    permission: 'write:project',
    body: ProjectUpdate,
    response: { status: 200, schema: Project },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id',
    summary: 'Delete a project',
    tag: 'projects',
    service: ProjectService,
    rpc: 'deleteProject',
    tool: false,
    permission: 'delete:project',
    roles: ADMIN_ROLES,
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
];
