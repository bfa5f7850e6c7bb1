import { isUuid, type Knex } from '@cluster/db';

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
};

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
  /** The opened session of a token hash, unless it has expired at `now`. */
  findLive(sessionHash: string, now: Date): Promise<PortalSessionRow | undefined>;
  /** The opened session of an id, unless it has expired at `now` (or was swept). Non-UUID ids find nothing. */
  findLiveById(id: string, now: Date): Promise<PortalSessionRow | undefined>;
  settings(organizationId: string): Promise<PortalSettingsRow | undefined>;
  saveSettings(organizationId: string, frameAncestors: string[]): Promise<PortalSettingsRow>;
  /** Deletes sessions whose link and session have both expired before `before`; answers how many. */
  deleteExpired(before: Date): Promise<number>;
}

const SESSIONS = 'delivery.portal_sessions';
const SETTINGS = 'delivery.portal_settings';

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
      return db<PortalSessionRow>(SESSIONS).where({ sessionHash }).where('expiresAt', '>', now).first();
    },
    async findLiveById(id, now) {
      if (!isUuid(id)) return undefined;
      return db<PortalSessionRow>(SESSIONS).where({ id }).whereNotNull('openedAt').where('expiresAt', '>', now).first();
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
