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
import { systemWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { CredentialAdminError, required } from './errors.ts';
import { apiKeyCreatedEvent, apiKeyRevokedEvent } from './events.ts';
import { generateApiKey } from './key-secret.ts';
import { presentMintedKey, presentRevokedKey } from './presenter.ts';

/** What `admin key create` asks for: the key's user, and optionally its scope, project, permissions and name. */
export interface MintKeyArgs {
  user: string;
  scope?: string;
  project?: string;
  /** A comma-separated list; absent: the role's defaults. */
  permissions?: string;
  name?: string;
}

/** The explicit permissions of `list` (comma-separated), each known and grantable by `role`. */
function parsePermissions(list: string, role: Role): Permission[] {
  const names = list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = names.filter((p) => !isPermission(p));
  if (unknown.length) throw new CredentialAdminError(`unknown permissions: ${unknown.join(', ')}`);
  const permissions = names.filter(isPermission);
  const allowed = grantablePermissions(role);
  const beyond = permissions.filter((p) => !allowed.has(p));
  if (beyond.length) throw new CredentialAdminError(`role ${role} cannot grant: ${beyond.join(', ')}`);
  return permissions;
}

/**
 * The lifecycle of API keys, run by the operator (admin CLI, docs/runbook.md): minting under the
 * spec's rules (who may mint which scope and grant what) and revoking. Keys are generated and
 * hashed in key-secret.ts; their writes emit api_key.created / api_key.revoked as `systemWrite`s.
 */
export function createKeyRules(stores: Stores) {
  return {
    /** Mints a key under the spec's rules; the key is shown once. */
    async mint(args: MintKeyArgs): Promise<{ id: string; key: string; prefix: string }> {
      if (!isUuid(args.user)) throw new CredentialAdminError('unknown user');
      const user = await stores.users.findById(args.user);
      if (!user) throw new CredentialAdminError('unknown user');
      const role = user.role;
      if (!isRole(role)) throw new CredentialAdminError(`unknown role ${role}`);
      const scope = args.scope ?? (args.project ? 'project' : 'organization');
      if (scope !== 'organization' && scope !== 'project')
        throw new CredentialAdminError('--scope must be organization or project');
      const isAdmin = ADMIN_ROLES.includes(role);
      if (scope === 'organization' && !isAdmin)
        throw new CredentialAdminError(`role ${role} cannot mint organization-scoped keys`);
      let projectId: string | null = null;
      if (scope === 'project') {
        projectId = required(args.project, '--project is required for a project-scoped key');
        if (!isUuid(projectId)) throw new CredentialAdminError('unknown project');
        const project = await stores.projects.find(user.organizationId, projectId);
        if (!project) throw new CredentialAdminError('unknown project');
        if (!isAdmin) {
          if (!PROJECT_KEY_MINTERS.includes(role)) throw new CredentialAdminError(`role ${role} cannot mint keys`);
          const member = await stores.members.findByUser(projectId, user.id);
          if (!member) throw new CredentialAdminError('the user is not a member of this project');
        }
      }
      const permissions = args.permissions === undefined ? null : parsePermissions(args.permissions, role);
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
        return presentMintedKey(row, key);
      });
    },

    /** Revokes a key (api_key.revoked); revoking twice keeps the first time and emits nothing new. */
    async revoke(id: string): Promise<{ id: string; revokedAt: string }> {
      if (!isUuid(id)) throw new CredentialAdminError('unknown key');
      return stores.transaction(async (tx) => {
        const before = await tx.apiKeys.find(id, { lock: true });
        if (!before) throw new CredentialAdminError('unknown key');
        if (before.revokedAt) return presentRevokedKey(before, before.revokedAt);
        const row = await tx.apiKeys.revoke(id);
        if (!row?.revokedAt) throw new Error(`api key ${id} was locked but not revoked`);
        await tx.record(systemWrite(row.organizationId, null, [apiKeyRevokedEvent(row)]));
        return presentRevokedKey(row, row.revokedAt);
      });
    },
  };
}
