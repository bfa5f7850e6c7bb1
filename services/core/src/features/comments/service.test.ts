import { describe, expect, it } from 'vitest';
import type { CommentCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, reasonOf, TEST_ORG, testActor as actor, unvalidated, like } from '../../shared/test-kit.ts';
import { createEntryService } from '../entries/service.ts';
import { createCommentService } from './service.ts';

async function setup() {
  const stores = createFakeStores();
  const comments = createCommentService(stores);
  const entries = createEntryService(stores);
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
  const entry = await entries.create(actor(), project.id, {
    type: 'bug_report',
    title: 'Broken',
    description: '',
    status: 'in_progress',
  });
  stores.written.length = 0;
  return { stores, comments, entries, project, entry: { ...entry, id: entry.id as string } };
}

describe('comment rules (fake stores)', () => {
  it('stores content as body, answers it without tenant columns, audits and emits entry.commented with the entry fields', async () => {
    const { stores, comments, project, entry } = await setup();
    // bogus: an unknown property the gateway refuses; the core must ignore it all the same.
    const body = unvalidated<CommentCreateBody>({ content: 'Looks bad', isInternal: 'true', bogus: 1 });
    const c = await comments.create(actor(), entry.id, body);
    expect(c).toMatchObject({ body: 'Looks bad', isInternal: 'true', entryId: entry.id, authorId: 'u1' });
    expect(c).not.toHaveProperty('content');
    expect(c).not.toHaveProperty('organizationId');
    expect(c).not.toHaveProperty('projectId');
    expect(c).not.toHaveProperty('bogus');
    const [write] = stores.written;
    expect(write.rows[0].row).toMatchObject({
      entityType: 'comment',
      action: 'created',
      entityId: c.id,
      projectId: project.id,
      metadata: like({ entryId: entry.id }),
    });
    expect(write.events).toEqual([
      like({
        eventName: 'entry.commented',
        entityType: 'entry',
        entityId: entry.id,
        projectId: project.id,
        payload: {
          entryId: entry.id,
          projectId: project.id,
          title: 'Broken',
          type: 'bug_report',
          status: 'in_progress',
          commentId: c.id,
          authorId: 'u1',
          body: 'Looks bad',
          isInternal: 'true',
        },
      }),
    ]);
  });

  it('audits an update with its changed fields and no event; a delete likewise', async () => {
    const { stores, comments, entry } = await setup();
    const c = await comments.create(actor(), entry.id, { content: 'a' });
    const updated = await comments.update(actor(), c.id as string, { content: 'b', isInternal: null });
    expect(updated.body).toBe('b');
    await comments.remove(actor(), c.id as string);
    const [, update, del] = stores.written;
    expect(update.events).toEqual([]);
    expect(update.rows[0].row).toMatchObject({
      action: 'updated',
      metadata: like({ entryId: entry.id, changedFields: ['body'] }),
    });
    expect(del.events).toEqual([]);
    expect(del.rows[0].row).toMatchObject({
      action: 'deleted',
      entityId: c.id,
      metadata: like({ entryId: entry.id }),
    });
    expect(stores.comments.rows).toEqual([]);
  });

  it("404s on another organization's entry or comment and, from a project key, another project's; writes nothing", async () => {
    const { stores, comments, project, entry } = await setup();
    const mine = await comments.create(actor(), entry.id, { content: 'a' });
    const writes = stores.written.length;
    const other = actor({ organizationId: OTHER_ORG });
    expect(await reasonOf(comments.create(other, entry.id, { content: 'x' }))).toBe('not_found');
    expect(await reasonOf(comments.list(other, entry.id, { page: 1, pageSize: 25 }))).toBe('not_found');
    expect(await reasonOf(comments.get(other, mine.id as string))).toBe('not_found');
    expect(await reasonOf(comments.update(other, mine.id as string, { content: 'x' }))).toBe('not_found');
    expect(await reasonOf(comments.remove(other, mine.id as string))).toBe('not_found');
    const sibling = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    const key = actor({ scope: 'project', scopedProjectId: sibling.id });
    expect(await reasonOf(comments.get(key, mine.id as string))).toBe('not_found');
    expect(await reasonOf(comments.create(key, entry.id, { content: 'x' }))).toBe('not_found');
    expect(await reasonOf(comments.get(actor({ scope: 'project', scopedProjectId: project.id }), mine.id as string))).toBe(
      'no error',
    );
    expect(stores.written).toHaveLength(writes);
  });

  it("lists an entry's comments newest first", async () => {
    const { comments, entry } = await setup();
    await comments.create(actor(), entry.id, { content: 'first' });
    await comments.create(actor(), entry.id, { content: 'second' });
    const page = await comments.list(actor(), entry.id, { page: 1, pageSize: 25 });
    expect(page.data.map((c) => c.body)).toEqual(['second', 'first']);
    expect(page.total).toBe(2);
  });
});
