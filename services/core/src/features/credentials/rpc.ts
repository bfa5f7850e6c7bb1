import type { ServiceImpl } from '@connectrpc/connect';
import { jsonBytes, requireActor } from '@cluster/platform';
import type { AuthService, SessionService } from '@cluster/proto';
import type { createAuthService } from './auth-service.ts';
import type { createSessionRules } from './sessions.ts';

/** AuthService over Connect: the gateway's key check, GET /me, and the delivery service's check of a token's actor. */
export function authRpc(auth: ReturnType<typeof createAuthService>): ServiceImpl<typeof AuthService> {
  return {
    async authenticate(req) {
      return auth.authenticate(req.key, req.requestId);
    },
    async getMe(req) {
      return { resource: jsonBytes(await auth.me(req.actor)) };
    },
    async confirmActor(req) {
      // The service-token interceptor has already resolved the token's actor to its key's current one
      // (currentActor: 401 revoked or unknown, 409 actor_changed); nothing is left to check.
      requireActor(req.actor);
      return {};
    },
  };
}

/** SessionService over Connect (its caller: the evidence service's settings routes). */
export function sessionRpc(sessions: ReturnType<typeof createSessionRules>): ServiceImpl<typeof SessionService> {
  return {
    async authenticateSession(req) {
      return sessions.authenticate(req.token);
    },
  };
}
