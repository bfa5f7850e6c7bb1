import { describe, expect, it } from 'vitest';
import { ADMIN_ROLES, APPROVER_ROLES } from '@cluster/contracts';
import { DomainError } from '@cluster/platform';
import { authorize } from './authorize.ts';

const orgKey = { scope: 'organization', permissions: ['read:project', 'write:project'], role: 'manager' };
const projectKey = { ...orgKey, scope: 'project' };

/** The reason and message authorize throws, or 'allowed'. */
function outcome(...args: Parameters<typeof authorize>): string {
  try {
    authorize(...args);
    return 'allowed';
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return `${err.status} ${err.reason}: ${err.message}`;
  }
}

describe('authorize (pipeline step 4)', () => {
  it('lets through a key with the permission on a route without gates', () => {
    expect(outcome({ permission: 'read:project' }, orgKey, true)).toBe('allowed');
    expect(outcome({}, projectKey, true)).toBe('allowed');
  });

  it('refuses every route when the organization has the v1 API off, before any other check', () => {
    expect(outcome({ orgKeyOnly: true, permission: 'delete:project' }, projectKey, false)).toBe(
      '403 forbidden: the v1 API is disabled for this organization',
    );
  });

  it('refuses a project key on an organization-wide route (scope before permission)', () => {
    expect(outcome({ orgKeyOnly: true, permission: 'delete:project' }, projectKey, true)).toMatch(/^403 scope_violation: /);
    expect(outcome({ orgKeyOnly: true, permission: 'read:project' }, orgKey, true)).toBe('allowed');
  });

  it('refuses a key without the route permission, naming it', () => {
    const refused = outcome({ permission: 'delete:project' }, orgKey, true);
    expect(refused).toMatch(/^403 forbidden: /);
    expect(refused).toContain('delete:project');
  });

  it('gates on the creating user role, naming the roles but platform_admin', () => {
    expect(outcome({ roles: ADMIN_ROLES }, orgKey, true)).toBe('403 forbidden: requires role admin');
    expect(outcome({ roles: APPROVER_ROLES }, orgKey, true)).toBe('allowed');
    expect(outcome({ roles: ADMIN_ROLES }, { ...orgKey, role: 'platform_admin' }, true)).toBe('allowed');
  });

  it('refuses a role the contracts do not know (never matches a gate)', () => {
    expect(outcome({ roles: APPROVER_ROLES }, { ...orgKey, role: 'superuser' }, true)).toBe(
      '403 forbidden: requires role manager or admin',
    );
    expect(outcome({ roles: APPROVER_ROLES }, { ...orgKey, role: '' }, true)).toMatch(/^403 forbidden/);
  });
});
