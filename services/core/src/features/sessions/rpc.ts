import type { ServiceImpl } from '@connectrpc/connect';
import type { SessionService } from '@cluster/proto';
import type { createSessionService } from './service.ts';

/** SessionService over Connect (its caller: the evidence service's settings routes). */
export function sessionRpc(sessions: ReturnType<typeof createSessionService>): ServiceImpl<typeof SessionService> {
  return {
    async authenticateSession(req) {
      return sessions.authenticate(req.token);
    },
  };
}
