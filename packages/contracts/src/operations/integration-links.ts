import { ListOf, ListQuery } from '../resources/common.ts';
import {
  IntegrationLink,
  IntegrationLinkCreate,
  IntegrationLinkFilters,
  IntegrationLinkUpdate,
} from '../resources/integration-links.ts';
import type { Operation } from './operation.ts';

/** Integration links: a project key sees only those of its project (spec scope table). */
export const integrationLinkOperations: Operation[] = [
  {
    method: 'GET',
    path: '/integration-links',
    summary: 'List integration links',
    tag: 'integration-links',
    operation: 'cluster.core.v1.IntegrationLinkService/ListIntegrationLinks',
    tool: false,
    permission: 'read:project',
    query: ListQuery(IntegrationLinkFilters),
    response: { status: 200, schema: ListOf(IntegrationLink) },
  },
  {
    method: 'POST',
    path: '/integration-links',
    summary: 'Create an integration link (idempotent)',
    tag: 'integration-links',
    operation: 'cluster.core.v1.IntegrationLinkService/CreateIntegrationLink',
    tool: false,
    permission: 'write:integration_link',
    body: IntegrationLinkCreate,
    response: {
      status: 201,
      schema: IntegrationLink,
      description: 'Created (200 when the external record was already linked)',
      upsert: true,
    },
  },
  {
    method: 'GET',
    path: '/integration-links/:id',
    summary: 'Get an integration link',
    tag: 'integration-links',
    operation: 'cluster.core.v1.IntegrationLinkService/GetIntegrationLink',
    tool: false,
    permission: 'read:project',
    response: { status: 200, schema: IntegrationLink },
  },
  {
    method: 'PATCH',
    path: '/integration-links/:id',
    summary: 'Update an integration link',
    tag: 'integration-links',
    operation: 'cluster.core.v1.IntegrationLinkService/UpdateIntegrationLink',
    tool: false,
    permission: 'write:integration_link',
    body: IntegrationLinkUpdate,
    response: { status: 200, schema: IntegrationLink },
  },
  {
    method: 'DELETE',
    path: '/integration-links/:id',
    summary: 'Delete an integration link',
    tag: 'integration-links',
    operation: 'cluster.core.v1.IntegrationLinkService/DeleteIntegrationLink',
    tool: false,
    permission: 'delete:integration_link',
    response: { status: 204, description: 'Deleted' },
  },
];
