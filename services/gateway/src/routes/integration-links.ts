import { defineRoutes } from '../http/route.ts';
import { ListOf, ListQuery } from '../schemas/common.ts';
import {
  IntegrationLink, IntegrationLinkCreate, IntegrationLinkFilters, IntegrationLinkUpdate,
} from '../schemas/integration-links.ts';
import { list, listArgs, noContent, ok, upserted } from './helpers.ts';

/** Integration links: a project key sees only those of its project (spec scope table). */
export const integrationLinkRoutes = defineRoutes([
  {
    method: 'GET', path: '/integration-links', summary: 'List integration links', tag: 'integration-links',
    permission: 'read:project', query: ListQuery(IntegrationLinkFilters), response: { status: 200, schema: ListOf(IntegrationLink) },
    handler: async (input) => list(await input.clients.integrationLinks.listIntegrationLinks(listArgs(input))),
  },
  {
    method: 'POST', path: '/integration-links', summary: 'Create an integration link (idempotent)', tag: 'integration-links',
    permission: 'write:integration_link', body: IntegrationLinkCreate,
    response: { status: 201, schema: IntegrationLink, description: 'Created (200 when the external record was already linked)' },
    handler: async ({ actor, body, clients }) => upserted(await clients.integrationLinks.createIntegrationLink({ actor, body: body as never })),
  },
  {
    method: 'GET', path: '/integration-links/:id', summary: 'Get an integration link', tag: 'integration-links',
    permission: 'read:project', response: { status: 200, schema: IntegrationLink },
    handler: async ({ actor, params, clients }) =>
      ok((await clients.integrationLinks.getIntegrationLink({ actor, id: params.id })).resource),
  },
  {
    method: 'PATCH', path: '/integration-links/:id', summary: 'Update an integration link', tag: 'integration-links',
    permission: 'write:integration_link', body: IntegrationLinkUpdate, response: { status: 200, schema: IntegrationLink },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.integrationLinks.updateIntegrationLink({ actor, id: params.id, body: body as never })).resource),
  },
  {
    method: 'DELETE', path: '/integration-links/:id', summary: 'Delete an integration link', tag: 'integration-links',
    permission: 'delete:integration_link', response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.integrationLinks.deleteIntegrationLink({ actor, id: params.id });
      return noContent();
    },
  },
]);
