import { randomUUID } from 'node:crypto';
import type { OrganizationRow } from '../organizations/store.ts';
import type { UserRow } from '../users/store.ts';
import type { ApiKeyRow, ApiKeyStore, KeyForAuth, SessionRow, SessionStore } from './store.ts';

/** A key as the fake stores it: its row and its hash (which only findForAuth and findCurrent answer). */
export type FakeApiKey = ApiKeyRow & { keyHash: Buffer };

/** The fake tables a credential store reads beside its own, as the joins of the real one do. */
export interface CredentialJoins {
  users: () => readonly UserRow[];
  organizations: () => readonly OrganizationRow[];
}

const LAST_USED_EVERY_MS = 30_000;

/**
 * An in-memory ApiKeyStore for unit tests (no Postgres). Reads return copies; `findForAuth`
 * and `findCurrent` join the fake users and organizations (a key whose creator or organization
 * is missing is not found, as with the real inner join). `touched`: the key of every touchLastUsed call.
 */
export function createFakeApiKeyStore(
  joins: CredentialJoins,
  rows: FakeApiKey[] = [],
): ApiKeyStore & { rows: FakeApiKey[]; touched: string[] } {
  const touched: string[] = [];
  const withoutHash = ({ keyHash: _hash, ...row }: FakeApiKey): ApiKeyRow => ({
    ...row,
    permissions: row.permissions && [...row.permissions],
  });
  const forAuth = (k: FakeApiKey): KeyForAuth | undefined => {
    const user = joins.users().find((u) => u.id === k.createdByUserId);
    const org = joins.organizations().find((o) => o.id === k.organizationId);
    if (!user || !org) return undefined;
    const { id, organizationId, createdByUserId, scope, scopedProjectId, permissions, revokedAt, keyHash } = k;
    return {
      id,
      organizationId,
      createdByUserId,
      scope,
      scopedProjectId,
      permissions: permissions && [...permissions],
      revokedAt,
      keyHash,
      role: user.role,
      apiEnabled: org.apiEnabled,
    };
  };
  const byId = (id: string) => rows.find((r) => r.id === id);
  return {
    rows,
    touched,
    async insert(key) {
      const row: FakeApiKey = {
        ...key,
        permissions: key.permissions && [...key.permissions],
        id: randomUUID(),
        revokedAt: null,
        lastUsedAt: null,
        createdAt: new Date(),
      };
      rows.push(row);
      return withoutHash(row);
    },
    async find(id) {
      const row = byId(id);
      return row && withoutHash(row);
    },
    async revoke(id) {
      const row = byId(id);
      if (!row) return undefined;
      row.revokedAt = new Date();
      return withoutHash(row);
    },
    async findForAuth(prefix) {
      const row = rows.find((r) => r.prefix === prefix);
      return row && forAuth(row);
    },
    async findCurrent(ids) {
      return rows.filter((r) => ids.includes(r.id)).flatMap((r) => forAuth(r) ?? []);
    },
    async findForMe(id) {
      const row = byId(id);
      if (!row) return undefined;
      const { revokedAt: _revoked, createdAt: _created, ...shown } = withoutHash(row);
      return shown;
    },
    async touchLastUsed(id) {
      touched.push(id);
      const row = byId(id);
      const now = new Date();
      if (!row || (row.lastUsedAt && now.getTime() - row.lastUsedAt.getTime() < LAST_USED_EVERY_MS)) return;
      row.lastUsedAt = now;
    },
  };
}

/** An in-memory SessionStore for unit tests: `findLive` joins the fake users (a session of a missing user finds nothing). */
export function createFakeSessionStore(
  joins: Pick<CredentialJoins, 'users'>,
  rows: SessionRow[] = [],
): SessionStore & { rows: SessionRow[] } {
  return {
    rows,
    async insert(session) {
      rows.push({ ...session, createdAt: new Date() });
    },
    async findLive(tokenHash, now) {
      const session = rows.find((r) => r.tokenHash === tokenHash && r.expiresAt > now);
      const user = session && joins.users().find((u) => u.id === session.userId);
      return user && { userId: user.id, organizationId: user.organizationId, role: user.role };
    },
  };
}
