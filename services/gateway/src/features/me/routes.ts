import { Me } from '@cluster/contracts';
import { ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/** Identity: the API key a request authenticated with. */
export const meRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/me',
    summary: 'The API key actor',
    tag: 'identity',
    response: { status: 200, schema: Me },
    handler: async ({ actor, clients }) => ok((await clients.auth.getMe({ actor })).resource),
  }),
];
