import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import { isRole } from '@cluster/contracts';
import { createAgreementAdmin } from '../features/agreements/admin.ts';
import { codehostSecretBox } from '../features/codehost/box.ts';
import { createCodeHostService } from '../features/codehost/service.ts';
import { createKeyRules, type MintKeyArgs } from '../features/credentials/keys.ts';
import { createSessionRules } from '../features/credentials/sessions.ts';
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
 * Operations behind the admin CLI (docs/runbook.md, "Local operations"), over the core's stores of `db`.
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
  const keys = createKeyRules(stores);
  const sessions = createSessionRules(stores);
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

    /** `key create` and `key revoke`: the credentials feature's rules (features/credentials/keys.ts). */
    createKey: (args: MintKeyArgs) => keys.mint(args),
    revokeKey: (id: string) => keys.revoke(id),

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

    /** `session create`: a short-lived session token for the settings routes (features/credentials/sessions.ts). */
    createSession: (userId: string) => sessions.create(userId),

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
