import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { SeededOrg, TestCluster } from './cluster.ts';
import { createProject } from './people.ts';

// The scenario that makes every emitting path of the cluster fire (test/event-catalogue.test.ts checks
// the events against the catalogue, test/cloudevents.test.ts reads them with the CloudEvents SDK).

/**
 * Emitted names whose emitting path is too slow or too involved for the scenario below, by the
 * test file that makes them fire and checks them with expectCatalogued (test/support/catalogue.ts).
 */
export const EMITTED_ELSEWHERE: Record<string, string> = {
  'commit.linked': 'test/codehost.test.ts',
  'pr.merged': 'test/codehost.test.ts',
  'pr.reopened': 'test/codehost.test.ts',
  'ci.run.attributed': 'test/codehost.test.ts',
  'webhook.subscription.failing': 'test/webhook-health.test.ts',
  'webhook.subscription.disabled': 'test/webhook-health.test.ts',
};

/**
 * Makes every emitting path of the core and the delivery service fire at least once, in `org`
 * (its own project and admin); the last event it causes is `webhook.subscription.deleted`.
 */
export async function everyEmittingPath(c: TestCluster, org: SeededOrg, receiverUrl: string): Promise<void> {
  const ok = async (method: string, path: string, body?: unknown, key = org.key) => {
    const res = await c.api(key, method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const p = org.projectId;
  // Projects (internal): created by seedOrg; updated; a second one deleted.
  await ok('PATCH', `/projects/${p}`, { description: 'changed' });
  await ok('DELETE', `/projects/${await createProject(c, org.key, 'Doomed')}`);
  // Entries, comments, cost.
  const entry = await ok('POST', `/projects/${p}/entries`, {
    type: 'bug_report',
    title: 'Catalogued',
    description: 'd',
    assignedToId: org.adminId,
    committedCost: '900',
    costApprovalStatus: 'draft',
  });
  await ok('PATCH', `/entries/${entry.id}`, { status: 'in_progress' });
  await ok('PATCH', `/entries/${entry.id}`, { costApprovalStatus: 'pending_manager' });
  await ok('PATCH', `/entries/${entry.id}`, { costApprovalStatus: 'approved' });
  await ok('PATCH', `/entries/${entry.id}`, { costApprovalStatus: 'rejected' });
  await ok('POST', `/entries/${entry.id}/comments`, { content: 'a comment' });
  // Releases.
  const release = await ok('POST', `/projects/${p}/releases`, {
    name: 'R1',
    startDate: '2026-05-01T00:00:00.000Z',
    endDate: '2026-06-01T00:00:00.000Z',
  });
  await ok('PATCH', `/releases/${release.id}`, { status: 'released' });
  // Time entries: logged, updated, submitted, rejected, approved, unlocked.
  const time = await ok('POST', `/projects/${p}/time-entries`, { userId: org.adminId, workDate: '2026-11-02', minutes: 30 });
  await ok('PATCH', `/time-entries/${time.id}`, { minutes: 45 });
  await ok('POST', `/time-entries/${time.id}/submit`, {});
  await ok('POST', `/time-entries/${time.id}/reject`, { reason: 'wrong day' });
  await ok('POST', `/time-entries/${time.id}/submit`, {});
  await ok('POST', `/time-entries/${time.id}/approve`, {});
  await ok('POST', `/time-entries/${time.id}/unlock`, { reason: 'correction' });
  // Users: invited (with a membership), updated by the API and by the CLI, linked, bulk invited.
  const invited = await ok('POST', '/users/invite', {
    email: `new-${randomUUID()}@catalogue.test`,
    name: 'New',
    projectIds: [p],
  });
  await ok('PATCH', `/users/${invited.userId}`, { name: 'Renamed' });
  await c.admin.setRole(invited.userId, 'tester');
  const existing = await c.admin.createUser(org.orgId, `old-${randomUUID()}@catalogue.test`, 'Old', 'user');
  await ok('POST', '/users/invite', {
    email: (await c.api(org.key, 'GET', `/users/${existing.id}`)).body.email,
    name: 'Old',
    externalRef: { provider: 'okta', externalType: 'user', externalId: randomUUID() },
  });
  await ok('POST', '/users/bulk-invite', { invites: [{ email: `bulk-${randomUUID()}@catalogue.test`, name: 'Bulk' }] });
  // Members: added, updated, removed.
  const member = await ok('POST', `/projects/${p}/members`, { userId: existing.id });
  await ok('PATCH', `/projects/${p}/members/${member.id}`, { roleOverride: 'manager' });
  const remover = await c.admin.createKey({
    user: org.adminId,
    scope: 'organization',
    permissions: 'read:project,delete:project_member',
  });
  await ok('DELETE', `/projects/${p}/members/${member.id}`, undefined, remover.key);
  // Wiki pages.
  const page = await ok('POST', `/projects/${p}/wiki-pages`, { title: 'Runbook', content: 'text' });
  await ok('PATCH', `/wiki-pages/${page.id}`, { title: 'Runbook 2' });
  await ok('DELETE', `/wiki-pages/${page.id}`);
  // Integration links.
  const link = await ok('POST', '/integration-links', {
    provider: 'jira',
    externalType: 'issue',
    externalId: `C-${randomUUID()}`,
    alignEntityType: 'entry',
    alignEntityId: entry.id,
  });
  await ok('PATCH', `/integration-links/${link.id}`, { alignEntityType: 'project', alignEntityId: p });
  // Agreements and API keys (admin CLI operations).
  const agreement = await c.admin.createAgreement(p, 'MSA');
  await c.admin.signAgreement(agreement.id);
  const key = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
  await c.admin.revokeKey(key.id);
  // Webhook subscriptions (the delivery service's outbox).
  const sub = await ok('POST', '/webhooks', { destinationUrl: receiverUrl, eventNames: ['api_key.created'] });
  await ok('DELETE', `/webhooks/${sub.id}`);
}
