import { Me } from '../resources/me.ts';
import type { Operation } from './operation.ts';

/** Identity: the API key a request authenticated with. */
export const meOperations: Operation[] = [
  {
    method: 'GET',
    path: '/me',
    summary: 'The API key actor',
    tag: 'identity',
    operation: 'cluster.core.v1.AuthService/GetMe',
    tool: {
      name: 'whoami',
      title: 'Who am I',
      description: 'The API key in use: its organization, user, role, scope and permissions.',
    },
    response: { status: 200, schema: Me },
  },
];
