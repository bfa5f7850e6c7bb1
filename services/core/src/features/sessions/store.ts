import type { Knex } from '@cluster/db';

/** The user behind a live settings session. */
export interface SessionUser {
  userId: string;
  organizationId: string;
  role: string;
}

/** Settings sessions (table `sessions`, written by the admin CLI; tokens stored hashed). */
export interface SessionStore {
  /** The user of the session with this token hash, if it has not expired at `now`. */
  findLive(tokenHash: string, now: Date): Promise<SessionUser | undefined>;
}

export function createSessionStore(db: Knex): SessionStore {
  return {
    async findLive(tokenHash, now) {
      const row: SessionUser | undefined = await db('sessions')
        .join('users', 'users.id', 'sessions.userId')
        .where('sessions.tokenHash', tokenHash)
        .andWhere('sessions.expiresAt', '>', now)
        .first({ userId: 'users.id', organizationId: 'users.organizationId', role: 'users.role' });
      return row;
    },
  };
}
