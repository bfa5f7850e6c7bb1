import { Agreement } from '../resources/agreements.ts';
import { ListOf, ListQuery } from '../resources/common.ts';
import type { Operation } from './operation.ts';

/**
 * Agreements: read-only. There is deliberately no POST route, so
 * POST /projects/:id/agreements answers 405 method_not_allowed with `Allow: GET`.
 */
export const agreementOperations: Operation[] = [
  {
    method: 'GET',
    path: '/projects/:id/agreements',
    summary: 'List agreements of a project',
    tag: 'agreements',
    operation: 'cluster.core.v1.AgreementService/ListAgreements',
    tool: false,
    permission: 'read:agreement',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Agreement) },
  },
  {
    method: 'GET',
    path: '/agreements/:id',
    summary: 'Get an agreement',
    tag: 'agreements',
    operation: 'cluster.core.v1.AgreementService/GetAgreement',
    tool: false,
    permission: 'read:agreement',
    response: { status: 200, schema: Agreement },
  },
];
