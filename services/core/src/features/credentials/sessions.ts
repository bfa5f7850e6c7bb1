import { createHash, randomBytes } from 'node:crypto';
import { isUuid } from '@cluster/db';
import { DomainError } from '@cluster/platform';
import type { Stores } from '../../stores.ts';
import { CredentialAdminError } from './errors.ts';
import type { SessionUser } from './store.ts';

/** How long a settings session lives. */
const SESSION_TTL_MS = 60 * 60 * 1000;

/** sha256 (hex) of a session token: what `sessions` stores instead of the token. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Settings sessions: minted by the operator (`admin session create`, a short-lived token
 * stored hashed like keys) and resolved for the evidence service's settings routes
 * (SessionService; the routes check the role themselves).
 */
export function createSessionRules(stores: Pick<Stores, 'sessions' | 'users'>, clock: () => Date = () => new Date()) {
  return {
    /** A new session of a user: its token, shown once, and when it expires. */
    async create(userId: string): Promise<{ token: string; expiresAt: string }> {
      if (!isUuid(userId) || !(await stores.users.findById(userId))) throw new CredentialAdminError('unknown user');
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(clock().getTime() + SESSION_TTL_MS);
      await stores.sessions.insert({ tokenHash: hashSessionToken(token), userId, expiresAt });
      return { token, expiresAt: expiresAt.toISOString() };
    },

    /** The user of a live session; 401 unauthorized for an expired, unknown or empty token. */
    async authenticate(token: string): Promise<SessionUser> {
      const user = token ? await stores.sessions.findLive(hashSessionToken(token), clock()) : undefined;
      if (!user) throw new DomainError('unauthorized', 'no valid session: sign in again (admin session create)');
      return user;
    },
  };
}
