import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, testActor } from '../../shared/test-fixtures.ts';
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

  it('a key of the organization ends a session now, audited as revoked; then it is not found (docs/portal.md, “Ending a session”)', async () => {
    const stores = createFakeStores();
    const portal = createPortalService(stores);
    const link = await portal.create(KEY, { access: 'read-only' });
    const id = link.id as string;
    const opened = await portal.open(tokenOf(link.url));
    const listed = await portal.list(KEY, { page: 1, pageSize: 25 });
    expect(listed.total).toBe(1);
    expect(listed.data[0]).toMatchObject({
      id,
      apiKeyId: 'k1',
      access: 'read-only',
      scope: 'organization',
      projectId: null,
      linkExpiresAt: link.linkExpiresAt,
      expiresAt: opened.expiresAt,
    });
    expect(Object.keys(listed.data[0]).sort()).toEqual([
      'access',
      'apiKeyId',
      'createdAt',
      'expiresAt',
      'id',
      'linkExpiresAt',
      'openedAt',
      'projectId',
      'scope',
    ]);

    // Another organization's key finds nothing to end: 404, and the session lives on.
    expect(await reasonOf(portal.revoke(testActor({ organizationId: OTHER_ORG, apiKeyId: 'k2' }), id))).toBe('not_found');
    expect((await portal.authenticate(opened.sessionToken, '', false)).sessionId).toBe(id);

    await portal.revoke(testActor({ apiKeyId: 'k3' }), id);
    expect(await reasonOf(portal.authenticate(opened.sessionToken, '', false))).toBe('unauthorized');
    expect((await portal.list(KEY, { page: 1, pageSize: 25 })).total).toBe(0);
    const audit = stores.written.at(-1)!.rows[0].row;
    expect(audit).toMatchObject({
      entityType: 'portal_session',
      action: 'revoked',
      entityId: link.id,
      actor: { apiKeyId: 'k3' },
      metadata: { access: 'read-only', scope: 'organization', projectId: null, mintedByApiKeyId: 'k1', opened: true },
    });
    // Ended already: 404 again, and nothing more is audited.
    const audits = stores.written.length;
    expect(await reasonOf(portal.revoke(KEY, id))).toBe('not_found');
    expect(await reasonOf(portal.revoke(KEY, 'not-a-uuid'))).toBe('not_found');
    expect(stores.written.length).toBe(audits);

    // A link revoked before it was opened cannot be opened.
    const unopened = await portal.create(KEY, {});
    await portal.revoke(KEY, unopened.id as string);
    expect(await reasonOf(portal.open(tokenOf(unopened.url)))).toBe('unauthorized');
  });

  it('signs out of a session with its CSRF token only, audited as signed_out for the session’s actor', async () => {
    const stores = createFakeStores();
    const portal = createPortalService(stores);
    const link = await portal.create(KEY, { access: 'read-only' });
    const opened = await portal.open(tokenOf(link.url));
    expect(await reasonOf(portal.end(opened.sessionToken, ''))).toBe('forbidden');
    expect(await reasonOf(portal.end(opened.sessionToken, 'ptc_wrong'))).toBe('forbidden');
    expect((await portal.authenticate(opened.sessionToken, '', false)).sessionId).toBe(link.id);

    // A read-only session may end itself: it is no webhook write.
    expect(await portal.end(opened.sessionToken, opened.csrfToken)).toEqual({ sessionId: link.id });
    expect(await reasonOf(portal.authenticate(opened.sessionToken, '', false))).toBe('unauthorized');
    expect(stores.written.at(-1)!.rows[0].row).toMatchObject({
      entityType: 'portal_session',
      action: 'signed_out',
      entityId: link.id,
      actor: { apiKeyId: 'k1', portalSessionId: link.id, permissions: ['read:webhook'] },
      metadata: { mintedByApiKeyId: 'k1', opened: true },
    });
    expect(await reasonOf(portal.end(opened.sessionToken, opened.csrfToken))).toBe('unauthorized');
    expect(await reasonOf(portal.end('pts_unknown', 'ptc_unknown'))).toBe('unauthorized');
  });
});
