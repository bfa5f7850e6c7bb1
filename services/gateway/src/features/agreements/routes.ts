import { AgreementService } from '@cluster/proto';
import { Agreement, ListOf, ListQuery } from '@cluster/contracts';
import { list, listArgs, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/**
 * Agreements: read-only. There is deliberately no POST route, so
 * POST /projects/:id/agreements answers 405 method_not_allowed with `Allow: GET`.
 */
export const agreementRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/agreements',
    summary: 'List agreements of a project',
    tag: 'agreements',
    service: AgreementService,
    rpc: 'listAgreements',
    tool: false,
    permission: 'read:agreement',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Agreement) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'GET',
    path: '/agreements/:id',
    summary: 'Get an agreement',
    tag: 'agreements',
    service: AgreementService,
    rpc: 'getAgreement',
    tool: false,
    permission: 'read:agreement',
    response: { status: 200, schema: Agreement },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
];
