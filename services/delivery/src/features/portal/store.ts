import { isUuid, paginate, type Knex } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';

/** A row of delivery.portal_sessions as stored (migration 014). */
export type PortalSessionRow = {
  id: string;
  organizationId: string;
  apiKeyId: string;
  /** The session's actor (the Actor message as JSON). */
  actor: Record<string, unknown>;
  access: string;
  projectId: string | null;
  lifetimeSeconds: number;
  linkHash: string;
  linkExpiresAt: Date;
  openedAt: Date | null;
  sessionHash: string | null;
  csrfHash: string | null;
  expiresAt: Date | null;
  createdAt: Date;
  /** When the session was ended before its time (revoked by a key, or signed out): migration 020. */
  endedAt: Date | null;
};

/** What the list of live sessions reads of a row: no hash of any token. */
export type PortalSessionListRow = Pick<
  PortalSessionRow,
  | 'id'
  | 'organizationId'
  | 'apiKeyId'
  | 'actor'
  | 'access'
  | 'projectId'
  | 'createdAt'
  | 'linkExpiresAt'
  | 'openedAt'
  | 'expiresAt'
>;

/** The columns of PortalSessionListRow, in the list's select. */
const LIST_COLUMNS = [
  'id',
  'organizationId',
  'apiKeyId',
  'actor',
  'access',
  'projectId',
  'createdAt',
  'linkExpiresAt',
  'openedAt',
  'expiresAt',
] as const satisfies readonly (keyof PortalSessionListRow)[];

export type NewPortalSession = Pick<
  PortalSessionRow,
  'id' | 'organizationId' | 'apiKeyId' | 'actor' | 'access' | 'projectId' | 'lifetimeSeconds' | 'linkHash' | 'linkExpiresAt'
>;

export type PortalSettingsRow = { organizationId: string; frameAncestors: string[]; updatedAt: Date };

/** The portal's sessions and settings in Postgres: all SQL of the feature. */
export interface PortalStore {
  insert(values: NewPortalSession): Promise<PortalSessionRow>;
  /**
   * Opens the session of an unused, unexpired link, once: sets its session and CSRF hashes and its
   * expiry (`now` + its lifetime) in one conditional update. Undefined when the link is unknown,
   * used or expired.
   */
  open(linkHash: string, sessionHash: string, csrfHash: string, now: Date): Promise<PortalSessionRow | undefined>;
  /** The opened session of a token hash, unless it has expired at `now` or was ended. */
  findLive(sessionHash: string, now: Date): Promise<PortalSessionRow | undefined>;
  /** The opened session of an id, unless it has expired at `now`, was ended (or swept). Non-UUID ids find nothing. */
  findLiveById(id: string, now: Date): Promise<PortalSessionRow | undefined>;
  /**
   * The organization's live sessions at `now`, newest first: not ended, and either unopened with a link
   * still openable or opened and unexpired.
   */
  listLive(organizationId: string, now: Date, page: PageArgs): Promise<Page<PortalSessionListRow>>;
  /**
   * Ends a live session (as listLive counts it) of the organization at `now`, in one conditional update:
   * sets `endedAt`, and brings `expiresAt` (when opened) and `linkExpiresAt` forward to `now`. Answers the
   * ended session, or undefined when none of that id was live: unknown, another organization's, expired or
   * ended already. Non-UUID ids end nothing.
   */
  end(organizationId: string, id: string, now: Date): Promise<PortalSessionRow | undefined>;
  settings(organizationId: string): Promise<PortalSettingsRow | undefined>;
  saveSettings(organizationId: string, frameAncestors: string[]): Promise<PortalSettingsRow>;
  /** Deletes sessions whose link and session have both expired before `before`; answers how many. */
  deleteExpired(before: Date): Promise<number>;
}

const SESSIONS = 'delivery.portal_sessions';
const SETTINGS = 'delivery.portal_settings';

/** A session live at `now` (docs/portal.md, "Ending a session"): not ended, its link openable or the session unexpired. */
function live<Q extends Knex.QueryBuilder>(q: Q, now: Date): Q {
  return q.whereNull('endedAt').whereRaw('(("openedAt" IS NULL AND "linkExpiresAt" > ?) OR "expiresAt" > ?)', [now, now]) as Q;
}

export function createPortalStore(db: Knex): PortalStore {
  return {
    async insert(values) {
      const [row] = await db<PortalSessionRow>(SESSIONS).insert(values).returning('*');
      return row;
    },
    async open(linkHash, sessionHash, csrfHash, now) {
      const [row] = await db<PortalSessionRow>(SESSIONS)
        .where({ linkHash })
        .whereNull('openedAt')
        .whereNull('endedAt')
        .where('linkExpiresAt', '>', now)
        .update({
          openedAt: now,
          sessionHash,
          csrfHash,
          expiresAt: db.raw(`?::timestamptz + make_interval(secs => "lifetimeSeconds")`, [now]) as unknown as Date,
        })
        .returning('*');
      return row;
    },
    async findLive(sessionHash, now) {
      return db<PortalSessionRow>(SESSIONS).where({ sessionHash }).whereNull('endedAt').where('expiresAt', '>', now).first();
    },
    async findLiveById(id, now) {
      if (!isUuid(id)) return undefined;
      return db<PortalSessionRow>(SESSIONS)
        .where({ id })
        .whereNotNull('openedAt')
        .whereNull('endedAt')
        .where('expiresAt', '>', now)
        .first();
    },
    listLive(organizationId, now, page) {
      return paginate<PortalSessionListRow>(live(db(SESSIONS).select(LIST_COLUMNS).where({ organizationId }), now), page);
    },
    async end(organizationId, id, now) {
      if (!isUuid(id)) return undefined;
      // One conditional update: of two racing ends one answers the row, the other nothing; an open racing
      // it either commits first (then the opened session is ended) or finds `endedAt` set.
      const [row] = await live(db<PortalSessionRow>(SESSIONS).where({ organizationId, id }), now)
        .update({
          endedAt: now,
          expiresAt: db.raw('CASE WHEN "expiresAt" IS NULL THEN NULL ELSE least("expiresAt", ?::timestamptz) END', [
            now,
          ]) as unknown as Date,
          linkExpiresAt: db.raw('least("linkExpiresAt", ?::timestamptz)', [now]) as unknown as Date,
        })
        .returning('*');
      return row;
    },
    async settings(organizationId) {
      return db<PortalSettingsRow>(SETTINGS).where({ organizationId }).first();
    },
    async saveSettings(organizationId, frameAncestors) {
      const [row] = await db<PortalSettingsRow>(SETTINGS)
        .insert({ organizationId, frameAncestors, updatedAt: db.fn.now() as unknown as Date })
        .onConflict('organizationId')
        .merge(['frameAncestors', 'updatedAt'])
        .returning('*');
      return row;
    },
    async deleteExpired(before) {
      return db(SESSIONS)
        .where('linkExpiresAt', '<', before)
        .whereRaw('coalesce("expiresAt", "linkExpiresAt") < ?', [before])
        .delete();
    },
  };
}
