import type { ServiceImpl } from '@connectrpc/connect';
import { jsonBytes } from '@cluster/platform';
import type { AuthService } from '@cluster/proto';
import type { createAuthService } from './service.ts';

/** AuthService over Connect: the gateway's key check and GET /me. */
export function authRpc(auth: ReturnType<typeof createAuthService>): ServiceImpl<typeof AuthService> {
  return {
    async authenticate(req) {
      return auth.authenticate(req.key, req.requestId);
    },
    async getMe(req) {
      return { resource: jsonBytes(await auth.me(req.actor)) };
    },
  };
}
