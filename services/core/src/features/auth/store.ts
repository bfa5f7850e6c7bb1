import { isUuid, runPrepared, type Knex, type PreparedStatement } from '@cluster/db';

/** What authenticating a key reads: the key, its creator's role and its organization's API switch. */
export type KeyForAuth = {
  id: string;
  organizationId: string;
  createdByUserId: string;
  scope: string;
  scopedProjectId: string | null;
  permissions: string[] | null;
  keyHash: Buffer;
  revokedAt: Date | null;
  role: string;
  apiEnabled: boolean;
};

/** An api_keys row, as much of it as GET /me shows (never its hash). */
export type ApiKeyRow = Record<string, unknown> & { id: string; organizationId: string; prefix: string };

/** API keys in Postgres, as authentication reads them: all SQL of the feature. */
export interface AuthStore {
  /** The key with this display prefix, joined with its creator and organization; undefined when unknown. */
  findForAuth(prefix: string): Promise<KeyForAuth | undefined>;
  /** The same, by key ids (those that exist): what service tokens' actors are checked against on every call. */
  findCurrent(ids: string[]): Promise<KeyForAuth[]>;
  /** A key by id, the columns GET /me shows. */
  find(id: string): Promise<ApiKeyRow | undefined>;
  /** Sets lastUsedAt to now unless it was set in the last 30 seconds (by any replica). */
  touchLastUsed(id: string): Promise<void>;
}

// The key joined with its creator's role and its organization's API switch, by prefix or by id.
const KEY_FOR_AUTH = `
  select k."id", k."organizationId", k."createdByUserId", k."scope", k."scopedProjectId", k."permissions",
         k."keyHash", k."revokedAt", u."role" as "role", o."apiEnabled" as "apiEnabled"
  from "api_keys" as k
  join "users" as u on u."id" = k."createdByUserId"
  join "organizations" as o on o."id" = k."organizationId"`;
const BY_PREFIX: PreparedStatement = { name: 'core-authenticate-v2', text: `${KEY_FOR_AUTH} where k."prefix" = $1 limit 1` };
// What GET /me shows of its key (presenter.ts).
const ME: PreparedStatement = {
  name: 'core-me-v1',
  text: `select "id", "name", "prefix", "organizationId", "scope", "scopedProjectId", "permissions", "createdByUserId", "lastUsedAt"
         from "api_keys" where "id" = $1`,
};
const BY_IDS: PreparedStatement = { name: 'core-current-actors-v1', text: `${KEY_FOR_AUTH} where k."id" = any($1::uuid[])` };

/** The knex implementation of AuthStore. */
export function createAuthStore(db: Knex): AuthStore {
  return {
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
    async find(id) {
      return isUuid(id) ? (await runPrepared<ApiKeyRow>(db, ME, [id]))[0] : undefined;
    },
    async touchLastUsed(id) {
      await db('api_keys')
        .where({ id })
        .andWhereRaw(`("lastUsedAt" IS NULL OR "lastUsedAt" < now() - interval '30 seconds')`)
        .update({ lastUsedAt: db.fn.now() });
    },
  };
}
