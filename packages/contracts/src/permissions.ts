/** Organization roles of the spec. */
export const ROLES = [
  'user',
  'client',
  'tester',
  'developer',
  'tech_lead',
  'product_owner',
  'devops_engineer',
  'manager',
  'admin',
  'platform_admin',
] as const;
export type Role = (typeof ROLES)[number];

/** Every permission name (spec list plus write:wiki, delete:wiki from docs/decisions-api.md). */
export const PERMISSIONS = [
  'read:project',
  'write:project',
  'delete:project',
  'read:entry',
  'write:entry',
  'delete:entry',
  'read:comment',
  'write:comment',
  'delete:comment',
  'read:attachment',
  'write:attachment',
  'delete:attachment',
  'read:release',
  'write:release',
  'delete:release',
  'read:webhook',
  'write:webhook',
  'delete:webhook',
  'read:audit',
  'read:search',
  'read:snapshot',
  'read:agreement',
  'read:wiki',
  'write:wiki',
  'delete:wiki',
  'read:time_entry',
  'write:time_entry',
  'read:user',
  'write:user',
  'read:project_member',
  'write:project_member',
  'delete:project_member',
  'write:integration_link',
  'delete:integration_link',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const CLIENT: Permission[] = [
  'read:project',
  'read:entry',
  'write:entry',
  'read:comment',
  'write:comment',
  'read:attachment',
  'write:attachment',
  'read:release',
  'read:wiki',
  'read:search',
  'read:agreement',
  'read:snapshot',
];
const USER: Permission[] = [...CLIENT, 'read:time_entry', 'write:time_entry', 'read:user', 'read:project_member'];
const DEVELOPER: Permission[] = [
  ...USER,
  'write:release',
  'delete:entry',
  'delete:comment',
  'delete:attachment',
  'delete:release',
  'write:wiki',
  'delete:wiki',
  'read:audit',
  'write:integration_link',
];
const MANAGER: Permission[] = [
  ...DEVELOPER,
  'write:project',
  'read:webhook',
  'write:webhook',
  'delete:webhook',
  'write:project_member',
  'delete:integration_link',
];
const ADMIN: Permission[] = PERMISSIONS.filter((p) => p !== 'delete:project_member');

/** Default permission set of each role (docs/decisions-api.md, "Permissions"). */
export const DEFAULT_PERMISSIONS: Record<Role, readonly Permission[]> = {
  client: CLIENT,
  user: USER,
  tester: USER,
  developer: DEVELOPER,
  tech_lead: DEVELOPER,
  devops_engineer: DEVELOPER,
  product_owner: DEVELOPER,
  manager: MANAGER,
  admin: ADMIN,
  platform_admin: ADMIN,
};

/**
 * Permissions a key may grant when its creator has this role: the default set,
 * plus delete:project_member for admins (the only way to get it is an explicit array).
 */
export function grantablePermissions(role: Role): Set<Permission> {
  const set = new Set<Permission>(DEFAULT_PERMISSIONS[role]);
  if (role === 'admin' || role === 'platform_admin') set.add('delete:project_member');
  return set;
}

/** Roles that may mint project-scoped keys for projects they belong to. */
export const PROJECT_KEY_MINTERS: readonly Role[] = ['developer', 'tech_lead', 'devops_engineer', 'manager'];
export const ADMIN_ROLES: readonly Role[] = ['admin', 'platform_admin'];
export const APPROVER_ROLES: readonly Role[] = ['manager', 'admin', 'platform_admin'];

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}
export function isPermission(v: unknown): v is Permission {
  return typeof v === 'string' && (PERMISSIONS as readonly string[]).includes(v);
}
