import { isUuid, runPrepared, type Knex, type PreparedStatement } from '@cluster/db';

/**
 * An api_keys row as the stores answer it: every column but `keyHash`, which only
 * authentication reads (KeyForAuth), so that no other path can carry it out.
 */
export type ApiKeyRow = {
  id: string;
  organizationId: string;
  createdByUserId: string;
  name: string | null;
  prefix: string;
  scope: string;
  scopedProjectId: string | null;
  /** Explicit grants; null: the creator role's defaults. */
  permissions: string[] | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
};

/** The columns of ApiKeyRow, named so that a column a migration adds is not answered by accident. */
const API_KEY_COLUMNS = [
  'id',
  'organizationId',
  'createdByUserId',
  'name',
  'prefix',
  'scope',
  'scopedProjectId',
  'permissions',
  'lastUsedAt',
  'revokedAt',
  'createdAt',
] as const satisfies readonly (keyof ApiKeyRow)[];

/** What GET /me shows of its key (presenter.ts): never its hash. */
export type KeyForMe = Omit<ApiKeyRow, 'revokedAt' | 'createdAt'>;

/** What authenticating a key reads: the key with its hash, its creator's role and its organization's API switch. */
export type KeyForAuth = Pick<
  ApiKeyRow,
  'id' | 'organizationId' | 'createdByUserId' | 'scope' | 'scopedProjectId' | 'permissions' | 'revokedAt'
> & {
  keyHash: Buffer;
  role: string;
  apiEnabled: boolean;
};

/** A key (and its hash) about to be stored; `permissions` null: the role's defaults. */
export type NewApiKey = Pick<
  ApiKeyRow,
  'organizationId' | 'createdByUserId' | 'name' | 'prefix' | 'scope' | 'scopedProjectId' | 'permissions'
> & { keyHash: Buffer };

/** A sessions row as stored (the token itself is never stored, only its sha256). */
export type SessionRow = { tokenHash: string; userId: string; expiresAt: Date; createdAt: Date };

/** A settings session about to be stored. */
export type NewSession = Pick<SessionRow, 'tokenHash' | 'userId' | 'expiresAt'>;

/** The user behind a live settings session. */
export type SessionUser = { userId: string; organizationId: string; role: string };

/**
 * API keys in Postgres (table `api_keys`): minted and revoked by the operator (keys.ts),
 * read on every request by authentication (auth-service.ts). Keys are stored hashed.
 */
export interface ApiKeyStore {
  insert(key: NewApiKey): Promise<ApiKeyRow>;
  /** A key by id (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: boolean }): Promise<ApiKeyRow | undefined>;
  /** Marks a key revoked now; undefined when there is no such key. */
  revoke(id: string): Promise<ApiKeyRow | undefined>;
  /** The key with this display prefix, joined with its creator and organization; undefined when unknown. */
  findForAuth(prefix: string): Promise<KeyForAuth | undefined>;
  /** The same, by key ids (those that exist): what service tokens' actors are checked against on every call. */
  findCurrent(ids: string[]): Promise<KeyForAuth[]>;
  /** A key by id, the columns GET /me shows. Non-UUID ids find nothing. */
  findForMe(id: string): Promise<KeyForMe | undefined>;
  /** Sets lastUsedAt to now unless it was set in the last 30 seconds (by any replica). */
  touchLastUsed(id: string): Promise<void>;
}

/** Settings sessions in Postgres (table `sessions`, written by the admin CLI; tokens stored hashed). */
export interface SessionStore {
  insert(session: NewSession): Promise<void>;
  /** The user of the session with this token hash, if it has not expired at `now`. */
  findLive(tokenHash: string, now: Date): Promise<SessionUser | undefined>;
}

// The key joined with its creator's role and its organization's API switch, by prefix or by id.
const KEY_FOR_AUTH = `
  select k."id", k."organizationId", k."createdByUserId", k."scope", k."scopedProjectId", k."permissions",
         k."keyHash", k."revokedAt", u."role" as "role", o."apiEnabled" as "apiEnabled"
  from "api_keys" as k
  join "users" as u on u."id" = k."createdByUserId"
  join "organizations" as o on o."id" = k."organizationId"`;
const BY_PREFIX: PreparedStatement = { name: 'core-authenticate-v2', text: `${KEY_FOR_AUTH} where k."prefix" = $1 limit 1` };
const BY_IDS: PreparedStatement = { name: 'core-current-actors-v1', text: `${KEY_FOR_AUTH} where k."id" = any($1::uuid[])` };
// What GET /me shows of its key (presenter.ts).
const ME: PreparedStatement = {
  name: 'core-me-v1',
  text: `select "id", "name", "prefix", "organizationId", "scope", "scopedProjectId", "permissions", "createdByUserId", "lastUsedAt"
         from "api_keys" where "id" = $1`,
};

/** The knex implementation of ApiKeyStore. */
export function createApiKeyStore(db: Knex): ApiKeyStore {
  const keys = () => db<ApiKeyRow>('api_keys');
  return {
    async insert(key) {
      const [row] = await keys()
        // jsonb: the list as JSON text (node-postgres would send a JavaScript array as a Postgres array).
        .insert({ ...key, permissions: key.permissions && db.raw('?::jsonb', [JSON.stringify(key.permissions)]) })
        .returning(API_KEY_COLUMNS);
      return row;
    },
    async find(id, opts = {}) {
      if (!isUuid(id)) return undefined;
      const q = keys()
        .where({ id })
        .first(...API_KEY_COLUMNS);
      return opts.lock ? q.forUpdate() : q;
    },
    async revoke(id) {
      if (!isUuid(id)) return undefined;
      const [row] = await keys().where({ id }).update({ revokedAt: db.fn.now() }).returning(API_KEY_COLUMNS);
      return row;
    },
    // Every request runs one of these: prepared statements (planning the join costs five times
    // its execution) run without knex's builder, with their columns named so a migration that adds
    // one cannot break them.
    async findForAuth(prefix) {
      return (await runPrepared<KeyForAuth>(db, BY_PREFIX, [prefix]))[0];
    },
    async findCurrent(ids) {
      const valid = ids.filter(isUuid);
      return valid.length ? runPrepared<KeyForAuth>(db, BY_IDS, [valid]) : [];
    },
    async findForMe(id) {
      return isUuid(id) ? (await runPrepared<KeyForMe>(db, ME, [id]))[0] : undefined;
    },
    async touchLastUsed(id) {
      if (!isUuid(id)) return;
      await keys()
        .where({ id })
        .andWhereRaw(`("lastUsedAt" IS NULL OR "lastUsedAt" < now() - interval '30 seconds')`)
        .update({ lastUsedAt: db.fn.now() });
    },
  };
}

/** The knex implementation of SessionStore. */
export function createSessionStore(db: Knex): SessionStore {
  return {
    async insert(session) {
      await db<SessionRow>('sessions').insert(session);
    },
    async findLive(tokenHash, now) {
      return db('sessions')
        .join('users', 'users.id', 'sessions.userId')
        .where('sessions.tokenHash', tokenHash)
        .andWhere('sessions.expiresAt', '>', now)
        .first<SessionUser | undefined>({ userId: 'users.id', organizationId: 'users.organizationId', role: 'users.role' });
    },
  };
}
