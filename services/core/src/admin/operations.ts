import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import {
  ADMIN_ROLES,
  PROJECT_KEY_MINTERS,
  grantablePermissions,
  isPermission,
  isRole,
  type Permission,
  type Role,
} from '@cluster/contracts';
import { generateApiKey } from '../features/auth/keys.ts';
import { createAgreementAdmin } from '../features/agreements/admin.ts';
import { codehostSecretBox } from '../features/codehost/box.ts';
import { createCodeHostService } from '../features/codehost/service.ts';
import { apiKeyCreatedEvent, apiKeyRevokedEvent } from '../features/api-keys/events.ts';
import { createSnapshotAdmin, type SnapshotCreateArgs } from '../features/snapshots/admin.ts';
import { userUpdatedEvent } from '../features/users/events.ts';
import { systemWrite } from '../shared/write.ts';
import { createStores, type Stores } from '../stores.ts';

/** An admin command failed for a reason its caller should read (exit code 1). */
export class AdminError extends Error {}

function need<T>(v: T | undefined | null, message: string): T {
  if (v === undefined || v === null || v === '') throw new AdminError(message);
  return v;
}

/**
 * Operations behind the admin CLI (contract.md), over the core's stores of `db`.
 * Their writes go through the stores in transactions, with their events (and audit
 * records, where the operator's writes have one) as `systemWrite`s: actorId null,
 * actorType admin_cli.
 */
export function createAdminOperations(db: Knex, opts: AdminOptions = {}) {
  return createOperations(createStores(db), opts);
}

/** What some commands need beyond the stores: CODEHOST_SECRET_KEY's keyring (undefined: the development key). */
export interface AdminOptions {
  codehostSecretKeys?: readonly string[];
}

/** The admin CLI's operations over any Stores (createAdminOperations: over Postgres). */
export function createOperations(stores: Stores, opts: AdminOptions = {}) {
  const agreements = createAgreementAdmin(stores);
  const snapshots = createSnapshotAdmin(stores);
  const codehost = createCodeHostService(stores, codehostSecretBox(opts.codehostSecretKeys));
  const ops = {
    async createOrg(name: string) {
      const row = await stores.organizations.insert(need(name, '--name is required'));
      return { id: row.id };
    },

    async setApiEnabled(id: string, enabled: boolean) {
      const row = await stores.organizations.setApiEnabled(id, enabled);
      if (!row) throw new AdminError('unknown organization');
      return { id: row.id, apiEnabled: row.apiEnabled };
    },

    async createUser(org: string, email: string, name: string, role: string) {
      if (!isRole(role)) throw new AdminError(`unknown role ${role}`);
      if (!(await stores.organizations.find(org))) throw new AdminError('unknown organization');
      const row = await stores.users.insert({
        organizationId: org,
        email: need(email, '--email is required'),
        name: need(name, '--name is required'),
        role,
      });
      return { id: row.id };
    },

    /** A new role for a user (user.updated, by the operator); the same role again changes nothing. */
    async setRole(id: string, role: string) {
      if (!isRole(role)) throw new AdminError(`unknown role ${role}`);
      if (!isUuid(id)) throw new AdminError('unknown user');
      return stores.transaction(async (tx) => {
        const before = await tx.users.findById(id, { lock: true });
        if (!before) throw new AdminError('unknown user');
        if (before.role === role) return { id: before.id, role: before.role };
        const user = await tx.users.update(id, { role });
        await tx.record(systemWrite(user.organizationId, null, [userUpdatedEvent(user, null, ['role'])]));
        return { id: user.id, role: user.role };
      });
    },

    /** Mints a key under the spec's rules; the key is shown once. */
    async createKey(args: { user: string; scope?: string; project?: string; permissions?: string; name?: string }) {
      if (!isUuid(args.user)) throw new AdminError('unknown user');
      const user = await stores.users.findById(args.user);
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
        const project = await stores.projects.find(user.organizationId, projectId);
        if (!project) throw new AdminError('unknown project');
        if (!isAdmin) {
          if (!PROJECT_KEY_MINTERS.includes(role)) throw new AdminError(`role ${role} cannot mint keys`);
          const member = await stores.members.findByUser(projectId, user.id);
          if (!member) throw new AdminError('the user is not a member of this project');
        }
      }
      let permissions: Permission[] | null = null;
      if (args.permissions !== undefined) {
        const list = args.permissions
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean);
        const unknown = list.filter((p) => !isPermission(p));
        if (unknown.length) throw new AdminError(`unknown permissions: ${unknown.join(', ')}`);
        const allowed = grantablePermissions(role);
        const beyond = list.filter((p) => !allowed.has(p as Permission));
        if (beyond.length) throw new AdminError(`role ${role} cannot grant: ${beyond.join(', ')}`);
        permissions = list as Permission[];
      }
      const { key, prefix, hash } = generateApiKey();
      return stores.transaction(async (tx) => {
        const row = await tx.apiKeys.insert({
          organizationId: user.organizationId,
          createdByUserId: user.id,
          name: args.name ?? null,
          prefix,
          keyHash: hash,
          scope,
          scopedProjectId: projectId,
          permissions,
        });
        await tx.record(systemWrite(user.organizationId, null, [apiKeyCreatedEvent(row, user.id)]));
        return { id: row.id, key, prefix };
      });
    },

    /** Revokes a key (api_key.revoked); revoking twice keeps the first time and emits nothing new. */
    async revokeKey(id: string) {
      if (!isUuid(id)) throw new AdminError('unknown key');
      return stores.transaction(async (tx) => {
        const before = await tx.apiKeys.find(id, { lock: true });
        if (!before) throw new AdminError('unknown key');
        if (before.revokedAt) return { id: before.id, revokedAt: before.revokedAt.toISOString() };
        const row = await tx.apiKeys.revoke(id);
        await tx.record(systemWrite(row.organizationId, null, [apiKeyRevokedEvent(row)]));
        return { id: row.id, revokedAt: (row.revokedAt as Date).toISOString() };
      });
    },

    /** Adds a project member without audit or events (seeding: the demo and tests). An existing member stays. */
    async addMember(projectId: string, userId: string) {
      await stores.members.insert({ projectId, userId });
    },

    /** `agreement create` (status pending_signature) and `agreement sign` (emits agreement.signed). */
    createAgreement: (projectId: string, title: string) => agreements.create(projectId, title),
    signAgreement: (id: string) => agreements.sign(id),
    /** `snapshot create`: a ready report snapshot of a project with its summary text. */
    createSnapshot: (args: SnapshotCreateArgs) => snapshots.create(args),

    /** `codehost secret`: creates or rotates the organization's inbound webhook secret, printed once (docs/codehost.md). */
    rotateCodehostSecret: (organizationId: string, provider: string) => codehost.rotateSecret(organizationId, provider),

    /** Short-lived session token for the settings routes (stored hashed like keys). */
    async createSession(userId: string) {
      if (!(await stores.users.findById(userId))) throw new AdminError('unknown user');
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + 60 * 60 * 1000);
      await stores.apiKeys.insertSession({ tokenHash: createHash('sha256').update(token).digest('hex'), userId, expiresAt });
      return { token, expiresAt: expiresAt.toISOString() };
    },

    /**
     * The demo organization, created on first run: an admin, a developer and a
     * client, one project, and a fresh organization-scoped admin key (keys are
     * stored hashed, so a new one is minted each time it must be shown).
     */
    async demo() {
      let org: { id: string } | undefined = await stores.organizations.findByName('Demo Organization');
      if (!org) {
        const { id } = await ops.createOrg('Demo Organization');
        org = { id };
        const admin = await ops.createUser(id, 'admin@demo.test', 'Demo Admin', 'admin');
        const dev = await ops.createUser(id, 'dev@demo.test', 'Demo Developer', 'developer');
        await ops.createUser(id, 'client@demo.test', 'Demo Client', 'client');
        const project = await stores.projects.insert({
          organizationId: id,
          clientId: id,
          name: 'Demo Project',
          description: 'A project to try the API with',
        });
        await ops.addMember(project.id, admin.id);
        await ops.addMember(project.id, dev.id);
      }
      const users = await stores.users.listAll(org.id);
      const projects = await stores.projects.listNames(org.id);
      const admin = users.find((u) => u.role === 'admin');
      if (!admin) throw new AdminError('the demo organization has no admin');
      const key = await ops.createKey({ user: admin.id, scope: 'organization', name: `demo ${new Date().toISOString()}` });
      return { organizationId: org.id, users, projects, apiKey: key };
    },
  };
  return ops;
}
