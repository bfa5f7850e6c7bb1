import { isUuid, type Knex } from '@cluster/db';

/** A grant as the rules read it (migrations/012-oauth.ts). */
export interface GrantRow {
  id: string;
  clientId: string;
  apiKeyId: string;
  organizationId: string;
  scopes: string[];
  redirectUri: string;
  codeChallenge: string;
  resource: string | null;
  codeExpiresAt: Date;
  codeUsedAt: Date | null;
  accessExpiresAt: Date | null;
  refreshExpiresAt: Date | null;
  revokedAt: Date | null;
}

export type NewGrant = Pick<
  GrantRow,
  'clientId' | 'apiKeyId' | 'organizationId' | 'scopes' | 'redirectUri' | 'codeChallenge' | 'resource' | 'codeExpiresAt'
> & { codeHash: Buffer };

/** New tokens of a grant: their hashes and ends (`previousRefreshHash`: the refresh token they replace). */
export interface GrantTokens {
  accessHash: Buffer;
  accessExpiresAt: Date;
  refreshHash: Buffer;
  refreshExpiresAt: Date;
  previousRefreshHash: Buffer | null;
}

const GRANT_COLUMNS = [
  'id',
  'clientId',
  'apiKeyId',
  'organizationId',
  'scopes',
  'redirectUri',
  'codeChallenge',
  'resource',
  'codeExpiresAt',
  'codeUsedAt',
  'accessExpiresAt',
  'refreshExpiresAt',
  'revokedAt',
] as const;

/** The OAuth clients and grants of the core (all SQL of the sign-in); tokens and codes only as SHA-256. */
export interface OAuthStore {
  insertClient(id: string, metadata: object): Promise<void>;
  findClient(id: string): Promise<object | undefined>;
  insertGrant(grant: NewGrant): Promise<GrantRow>;
  /** Marks a live, unused code used and returns its grant; undefined when it is unknown, used, expired or revoked. */
  useCode(codeHash: Buffer, now: Date): Promise<GrantRow | undefined>;
  /** The grant of a code, whatever its state (a code presented twice revokes what it gave). */
  findByCode(codeHash: Buffer): Promise<GrantRow | undefined>;
  /** Replaces a grant's tokens; with `previousRefreshHash`, only while it is still the current one (rotation). */
  setTokens(grantId: string, tokens: GrantTokens): Promise<boolean>;
  findByAccess(accessHash: Buffer): Promise<GrantRow | undefined>;
  /** The grant whose current (`current`) or previous (`previous`) refresh token this is. */
  findByRefresh(refreshHash: Buffer): Promise<{ grant: GrantRow; current: boolean } | undefined>;
  findById(id: string): Promise<GrantRow | undefined>;
  revoke(grantId: string, now: Date): Promise<void>;
  /**
   * Deletes what can no longer be used since `before`: grants revoked, whose code lapsed unused, or
   * whose refresh token expired; then clients registered before it that hold no grant (a dynamic
   * registration that never signed in). Answers the number of rows deleted.
   */
  prune(before: Date): Promise<{ grants: number; clients: number }>;
}

export function createOAuthStore(db: Knex): OAuthStore {
  const grants = () => db<GrantRow>('oauth_grants');
  return {
    async insertClient(id, metadata) {
      await db('oauth_clients').insert({ id, metadata: JSON.stringify(metadata) });
    },
    async findClient(id) {
      const row = await db<{ id: string; metadata: object }>('oauth_clients').where('id', id).first('metadata');
      return row?.metadata;
    },
    async insertGrant(grant) {
      const [row] = await grants()
        .insert(grant as never)
        .returning(GRANT_COLUMNS as never);
      return row;
    },
    async useCode(codeHash, now) {
      const [row] = await grants()
        .where({ codeHash } as never)
        .whereNull('codeUsedAt')
        .whereNull('revokedAt')
        .where('codeExpiresAt', '>', now)
        .update({ codeUsedAt: now } as never)
        .returning(GRANT_COLUMNS as never);
      return row;
    },
    async findByCode(codeHash) {
      return grants()
        .where({ codeHash } as never)
        .first(...GRANT_COLUMNS);
    },
    async setTokens(grantId, tokens) {
      const { previousRefreshHash, ...rest } = tokens;
      const q = grants().where({ id: grantId }).whereNull('revokedAt');
      if (previousRefreshHash) q.where({ refreshHash: previousRefreshHash } as never);
      const n = await q.update({ ...rest, previousRefreshHash } as never);
      return n === 1;
    },
    async findByAccess(accessHash) {
      return grants()
        .where({ accessHash } as never)
        .first(...GRANT_COLUMNS);
    },
    async findByRefresh(refreshHash) {
      const row = await grants()
        .where({ refreshHash } as never)
        .orWhere({ previousRefreshHash: refreshHash } as never)
        .first(...GRANT_COLUMNS, db.raw('"refreshHash" = ? as current', [refreshHash]) as never);
      if (!row) return undefined;
      const { current, ...grant } = row as GrantRow & { current: boolean };
      return { grant, current };
    },
    async findById(id) {
      return isUuid(id)
        ? grants()
            .where({ id })
            .first(...GRANT_COLUMNS)
        : undefined;
    },
    async revoke(grantId, now) {
      await grants()
        .where({ id: grantId })
        .whereNull('revokedAt')
        .update({ revokedAt: now } as never);
    },
    async prune(before) {
      const dead = await grants()
        .whereRaw(
          '"revokedAt" < :before or "refreshExpiresAt" < :before or ("codeUsedAt" is null and "codeExpiresAt" < :before)',
          {
            before,
          },
        )
        .delete();
      const unused = await db('oauth_clients as c')
        .where('c.createdAt', '<', before)
        .whereNotExists(db('oauth_grants as g').whereRaw('g."clientId" = c.id'))
        .delete();
      return { grants: dead, clients: unused };
    },
  };
}
