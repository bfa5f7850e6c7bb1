import type { Knex, Migration } from '@cluster/db';

/**
 * A portal session ended before its time (docs/portal.md, "Ending a session"): `endedAt` is set once,
 * when a key of the organization revokes the session (DELETE /portal-sessions/:id) or its page signs
 * out. Every read of a live session requires it null, so an ended session is refused at once by every
 * replica, whatever its clock. The same update also brings `expiresAt` and `linkExpiresAt` forward to
 * the end, so the sweep forgets the row a day later as for any expired one.
 */
export const portalSessionEnd: Migration = {
  name: '020-portal-session-end',
  async up(knex: Knex) {
    await knex.raw('ALTER TABLE delivery.portal_sessions ADD COLUMN IF NOT EXISTS "endedAt" timestamptz');
  },
};
