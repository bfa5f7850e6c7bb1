import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import {
  ADMIN_ROLES, PROJECT_KEY_MINTERS, grantablePermissions, isPermission, isRole, type Permission, type Role,
} from '@cluster/contracts';
import { generateApiKey } from '../auth/keys.ts';
import { emit } from '../outbox/record.ts';
import { createAgreementAdmin } from '../features/agreements/admin.ts';
import { createSnapshotAdmin, type SnapshotCreateArgs } from '../features/snapshots/admin.ts';

/** An admin command failed for a reason its caller should read (exit code 1). */
export class AdminError extends Error {}

function need<T>(v: T | undefined | null, message: string): T {
  if (v === undefined || v === null || v === '') throw new AdminError(message);
  return v;
}

/**
 * Operations behind the admin CLI (contract.md). They write the core schema
 * directly, in transactions, with their events through the outbox.
 */
export function createAdminOperations(db: Knex) {
  const agreements = createAgreementAdmin(db);
  const snapshots = createSnapshotAdmin(db);
  const ops = {
    async createOrg(name: string) {
      const [row] = await db('organizations').insert({ name: need(name, '--name is required') }).returning('id');
      return { id: row.id as string };
    },

    async setApiEnabled(id: string, enabled: boolean) {
      if (!isUuid(id)) throw new AdminError('unknown organization');
      const [row] = await db('organizations').where({ id }).update({ apiEnabled: enabled }).returning(['id', 'apiEnabled']);
      if (!row) throw new AdminError('unknown organization');
      return { id: row.id as string, apiEnabled: row.apiEnabled as boolean };
    },

    async createUser(org: string, email: string, name: string, role: string) {
      if (!isRole(role)) throw new AdminError(`unknown role ${role}`);
      if (!isUuid(org) || !(await db('organizations').where({ id: org }).first())) throw new AdminError('unknown organization');
      const [row] = await db('users')
        .insert({ organizationId: org, email: need(email, '--email is required'), name: need(name, '--name is required'), role })
        .returning('id');
      return { id: row.id as string };
    },

    async setRole(id: string, role: string) {
      if (!isRole(role)) throw new AdminError(`unknown role ${role}`);
      if (!isUuid(id)) throw new AdminError('unknown user');
      return db.transaction(async (trx) => {
        const before = await trx('users').where({ id }).forUpdate().first();
        if (!before) throw new AdminError('unknown user');
        if (before.role === role) return { id: before.id as string, role: before.role as string };
        const [user] = await trx('users').where({ id }).update({ role, updatedAt: trx.fn.now() }).returning('*');
        await emit(trx, user.organizationId, null, [{
          eventName: 'user.updated', entityType: 'user', entityId: user.id, actorUserId: null,
          payload: {
            userId: user.id, organizationId: user.organizationId, email: user.email, name: user.name, role: user.role,
            actorId: null, changedFields: ['role'],
          },
        }]);
        return { id: user.id as string, role: user.role as string };
      });
    },

    /** Mints a key under the spec's rules; the key is shown once. */
    async createKey(args: { user: string; scope?: string; project?: string; permissions?: string; name?: string }) {
      if (!isUuid(args.user)) throw new AdminError('unknown user');
      const user = await db('users').where({ id: args.user }).first();
      if (!user) throw new AdminError('unknown user');
      const role = user.role as Role;
      const scope = args.scope ?? (args.project ? 'project' : 'organization');
      if (scope !== 'organization' && scope !== 'project') throw new AdminError('--scope must be organization or project');
      const isAdmin = ADMIN_ROLES.includes(role);
      if (scope === 'organization' && !isAdmin) throw new AdminError(`role ${role} cannot mint organization-scoped keys`);
      let projectId: string | null = null;
      if (scope === 'project') {
        projectId = need(args.project, '--project is required for a project-scoped key');
        if (!isUuid(projectId)) throw new AdminError('unknown project');
        const project = await db('projects').where({ id: projectId, organizationId: user.organizationId }).first();
        if (!project) throw new AdminError('unknown project');
        if (!isAdmin) {
          if (!PROJECT_KEY_MINTERS.includes(role)) throw new AdminError(`role ${role} cannot mint keys`);
          const member = await db('project_members').where({ projectId, userId: user.id }).first();
          if (!member) throw new AdminError('the user is not a member of this project');
        }
      }
      let permissions: Permission[] | null = null;
      if (args.permissions !== undefined) {
        const list = args.permissions.split(',').map((p) => p.trim()).filter(Boolean);
        const unknown = list.filter((p) => !isPermission(p));
        if (unknown.length) throw new AdminError(`unknown permissions: ${unknown.join(', ')}`);
        const allowed = grantablePermissions(role);
        const beyond = list.filter((p) => !allowed.has(p as Permission));
        if (beyond.length) throw new AdminError(`role ${role} cannot grant: ${beyond.join(', ')}`);
        permissions = list as Permission[];
      }
      const { key, prefix, hash } = generateApiKey();
      return db.transaction(async (trx) => {
        const [row] = await trx('api_keys')
          .insert({
            organizationId: user.organizationId, createdByUserId: user.id, name: args.name ?? null, prefix, keyHash: hash,
            scope, scopedProjectId: projectId, permissions: permissions ? JSON.stringify(permissions) : null,
          })
          .returning('id');
        await emit(trx, user.organizationId, null, [{
          eventName: 'api_key.created', entityType: 'api_key', entityId: row.id, actorUserId: user.id, projectId,
          payload: { apiKeyId: row.id, organizationId: user.organizationId, prefix, scope, scopedProjectId: projectId, createdByUserId: user.id },
        }]);
        return { id: row.id as string, key, prefix };
      });
    },

    async revokeKey(id: string) {
      if (!isUuid(id)) throw new AdminError('unknown key');
      return db.transaction(async (trx) => {
        const before = await trx('api_keys').where({ id }).forUpdate().first();
        if (!before) throw new AdminError('unknown key');
        // Revoking twice keeps the first time and emits nothing new.
        if (before.revokedAt) return { id: before.id as string, revokedAt: (before.revokedAt as Date).toISOString() };
        const [row] = await trx('api_keys').where({ id }).update({ revokedAt: trx.fn.now() }).returning('*');
        await emit(trx, row.organizationId, null, [{
          eventName: 'api_key.revoked', entityType: 'api_key', entityId: row.id, actorUserId: null, projectId: row.scopedProjectId,
          payload: { apiKeyId: row.id, organizationId: row.organizationId, prefix: row.prefix },
        }]);
        return { id: row.id as string, revokedAt: (row.revokedAt as Date).toISOString() };
      });
    },

    async addMember(projectId: string, userId: string) {
      await db('project_members').insert({ projectId, userId }).onConflict(['projectId', 'userId']).ignore();
    },

    /** `agreement create` (status pending_signature) and `agreement sign` (emits agreement.signed). */
    createAgreement: (projectId: string, title: string) => agreements.create(projectId, title),
    signAgreement: (id: string) => agreements.sign(id),
    /** `snapshot create`: a ready report snapshot of a project with its summary text. */
    createSnapshot: (args: SnapshotCreateArgs) => snapshots.create(args),

    /** Short-lived session token for the settings routes (stored hashed like keys). */
    async createSession(userId: string) {
      if (!isUuid(userId) || !(await db('users').where({ id: userId }).first())) throw new AdminError('unknown user');
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + 60 * 60 * 1000);
      await db('sessions').insert({ tokenHash: createHash('sha256').update(token).digest('hex'), userId, expiresAt });
      return { token, expiresAt: expiresAt.toISOString() };
    },

    /**
     * The demo organization, created on first run: an admin, a developer and a
     * client, one project, and a fresh organization-scoped admin key (keys are
     * stored hashed, so a new one is minted each time it must be shown).
     */
    async demo() {
      let org = await db('organizations').where({ name: 'Demo Organization' }).orderBy('createdAt').first();
      if (!org) {
        const { id } = await ops.createOrg('Demo Organization');
        org = { id };
        const admin = await ops.createUser(id, 'admin@demo.test', 'Demo Admin', 'admin');
        const dev = await ops.createUser(id, 'dev@demo.test', 'Demo Developer', 'developer');
        await ops.createUser(id, 'client@demo.test', 'Demo Client', 'client');
        const [project] = await db('projects')
          .insert({ organizationId: id, clientId: id, name: 'Demo Project', description: 'A project to try the API with' })
          .returning('id');
        await ops.addMember(project.id, admin.id);
        await ops.addMember(project.id, dev.id);
      }
      const users = await db('users').where({ organizationId: org.id }).orderBy('createdAt').select('id', 'email', 'name', 'role');
      const projects = await db('projects').where({ organizationId: org.id }).orderBy('createdAt').select('id', 'name');
      const admin = users.find((u) => u.role === 'admin');
      const key = await ops.createKey({ user: admin.id, scope: 'organization', name: `demo ${new Date().toISOString()}` });
      return { organizationId: org.id as string, users, projects, apiKey: key };
    },
  };
  return ops;
}
