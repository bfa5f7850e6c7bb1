import { IntegrationLinkService } from '@cluster/proto';
import {
  IntegrationLink,
  IntegrationLinkCreate,
  IntegrationLinkFilters,
  IntegrationLinkUpdate,
  ListOf,
  ListQuery,
} from '@cluster/contracts';
import { list, listArgs, noContent, ok, upserted } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Integration links: a project key sees only those of its project (spec scope table). */
export const integrationLinkRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/integration-links',
    summary: 'List integration links',
    tag: 'integration-links',
    service: IntegrationLinkService,
    rpc: 'listIntegrationLinks',
    tool: false,
    permission: 'read:project',
    query: ListQuery(IntegrationLinkFilters),
    response: { status: 200, schema: ListOf(IntegrationLink) },
    handler: async (input) => list(await input.call(listArgs(input))),
  }),
  defineRoute({
    method: 'POST',
    path: '/integration-links',
    summary: 'Create an integration link (idempotent)',
    tag: 'integration-links',
    service: IntegrationLinkService,
    rpc: 'createIntegrationLink',
    tool: false,
    permission: 'write:integration_link',
    body: IntegrationLinkCreate,
    response: { status: 201, schema: IntegrationLink, description: 'Created (200 when the external record was already linked)' },
    handler: async ({ actor, body, call }) => upserted(await call({ actor, body: toStruct(body) })),
  }),
  defineRoute({
    method: 'GET',
    path: '/integration-links/:id',
    summary: 'Get an integration link',
    tag: 'integration-links',
    service: IntegrationLinkService,
    rpc: 'getIntegrationLink',
    tool: false,
    permission: 'read:project',
    response: { status: 200, schema: IntegrationLink },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/integration-links/:id',
    summary: 'Update an integration link',
    tag: 'integration-links',
    service: IntegrationLinkService,
    rpc: 'updateIntegrationLink',
    tool: false,
    permission: 'write:integration_link',
    body: IntegrationLinkUpdate,
    response: { status: 200, schema: IntegrationLink },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/integration-links/:id',
    summary: 'Delete an integration link',
    tag: 'integration-links',
    service: IntegrationLinkService,
    rpc: 'deleteIntegrationLink',
    tool: false,
    permission: 'delete:integration_link',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
];
