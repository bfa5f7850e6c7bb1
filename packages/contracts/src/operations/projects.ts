import { ADMIN_ROLES } from '../permissions.ts';
import { ListOf, ListQuery } from '../resources/common.ts';
import { Project, ProjectCreate, ProjectFilters, ProjectUpdate } from '../resources/projects.ts';
import type { Operation } from './operation.ts';

/** Projects of the organization. */
export const projectOperations: Operation[] = [
  {
    method: 'GET',
    path: '/projects',
    summary: 'List projects',
    tag: 'projects',
    operation: 'cluster.core.v1.ProjectService/ListProjects',
    tool: { name: 'list_projects', title: 'List projects', description: 'Projects the key can see, newest first.' },
    permission: 'read:project',
    query: ListQuery(ProjectFilters),
    response: { status: 200, schema: ListOf(Project) },
  },
  {
    method: 'POST',
    path: '/projects',
    summary: 'Create a project',
    tag: 'projects',
    operation: 'cluster.core.v1.ProjectService/CreateProject',
    tool: false,
    permission: 'write:project',
    orgKeyOnly: true,
    body: ProjectCreate,
    response: { status: 201, schema: Project },
  },
  {
    method: 'GET',
    path: '/projects/:id',
    summary: 'Get a project',
    tag: 'projects',
    operation: 'cluster.core.v1.ProjectService/GetProject',
    tool: { name: 'get_project', title: 'Get a project', description: 'One project by id.' },
    permission: 'read:project',
    response: { status: 200, schema: Project },
  },
  {
    method: 'PATCH',
    path: '/projects/:id',
    summary: 'Update a project',
    tag: 'projects',
    operation: 'cluster.core.v1.ProjectService/UpdateProject',
    tool: false,
    permission: 'write:project',
    body: ProjectUpdate,
    response: { status: 200, schema: Project },
  },
  {
    method: 'DELETE',
    path: '/projects/:id',
    summary: 'Delete a project',
    tag: 'projects',
    operation: 'cluster.core.v1.ProjectService/DeleteProject',
    tool: false,
    permission: 'delete:project',
    roles: ADMIN_ROLES,
    response: { status: 204, description: 'Deleted' },
  },
];
