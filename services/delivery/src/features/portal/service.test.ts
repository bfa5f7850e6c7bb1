import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { testActor } from '../../shared/test-fixtures.ts';
import { createPortalService, hashPortalToken } from './service.ts';

const PROJECT = '00000000-0000-4000-8000-0000000000aa';
const KEY = testActor({ permissions: ['read:webhook', 'write:webhook', 'delete:webhook', 'read:project'] });
const tokenOf = (url: unknown) => String(url).split('token=')[1];
const reasonOf = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: { reason?: string }) => err.reason,
  );

describe('portal sessions (rules)', () => {
  it('narrows the key’s actor to the access and scope asked, and audits the minting', async () => {
    const stores = createFakeStores();
    const portal = createPortalService(stores);
    const link = await portal.create(KEY, { access: 'read-only', projectId: PROJECT, lifetimeSeconds: 60 });
    expect(link).toMatchObject({ access: 'read-only', scope: 'project', projectId: PROJECT, lifetimeSeconds: 60 });
    const row = stores.portal.rows[0];
    expect(row.linkHash).toBe(hashPortalToken(tokenOf(link.url)));
    expect(row.actor).toMatchObject({ scope: 'project', scopedProjectId: PROJECT, permissions: ['read:webhook'] });
    expect(stores.written[0].rows[0].row).toMatchObject({ entityType: 'portal_session', action: 'created' });
  });

  it('opens a link once; a write needs the CSRF token', async () => {
    const stores = createFakeStores();
    const portal = createPortalService(stores);
    const token = tokenOf((await portal.create(KEY, {})).url);
    const opened = await portal.open(token);
    expect(opened.actor.permissions).toEqual(['read:webhook', 'write:webhook', 'delete:webhook']);
    expect(await reasonOf(portal.open(token))).toBe('unauthorized');
    expect((await portal.authenticate(opened.sessionToken, '', false)).sessionId).toBe(opened.sessionId);
    expect(await reasonOf(portal.authenticate(opened.sessionToken, '', true))).toBe('forbidden');
    expect(await reasonOf(portal.authenticate(opened.sessionToken, 'ptc_wrong', true))).toBe('forbidden');
    expect((await portal.authenticate(opened.sessionToken, opened.csrfToken, true)).access).toBe('manage');
    expect(await reasonOf(portal.authenticate('pts_unknown', '', false))).toBe('unauthorized');
    // Expired: the session is refused.
    stores.portal.rows[0].expiresAt = new Date(Date.now() - 1);
    expect(await reasonOf(portal.authenticate(opened.sessionToken, '', false))).toBe('unauthorized');
  });
});
