import { createHash } from 'node:crypto';
import { DomainError } from '@cluster/platform';
import type { Stores } from '../../stores.ts';

/** Settings sessions: who a session token belongs to (the settings routes check the role themselves). */
export function createSessionService(stores: Pick<Stores, 'sessions'>, clock: () => Date = () => new Date()) {
  return {
    async authenticate(token: string) {
      const user = token ? await stores.sessions.findLive(createHash('sha256').update(token).digest('hex'), clock()) : undefined;
      if (!user) throw new DomainError('unauthorized', 'no valid session: sign in again (admin session create)');
      return user;
    },
  };
}
