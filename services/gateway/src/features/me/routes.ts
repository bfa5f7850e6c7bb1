import { Me } from '@cluster/contracts';
import { AuthService } from '@cluster/proto';
import { ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/** Identity: the API key a request authenticated with. */
export const meRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/me',
    summary: 'The API key actor',
    tag: 'identity',
    service: AuthService,
    rpc: 'getMe',
    tool: {
      name: 'whoami',
      title: 'Who am I',
      description: 'The API key in use: its organization, user, role, scope and permissions.',
    },
    response: { status: 200, schema: Me },
    handler: async ({ actor, call }) => ok((await call({ actor })).resource),
  }),
];
