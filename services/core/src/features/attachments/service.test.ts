import { describe, expect, it } from 'vitest';
import type { AttachmentCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, reasonOf, TEST_ORG, testActor as actor, unvalidated, like } from '../../shared/test-kit.ts';
import { createEntryService } from '../entries/service.ts';
import { createAttachmentService } from './service.ts';

async function setup() {
  const stores = createFakeStores();
  const attachments = createAttachmentService(stores);
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
  const entry = await createEntryService(stores).create(actor(), project.id, {
    type: 'bug_report',
    title: 'Broken',
    description: '',
  });
  stores.written.length = 0;
  return { stores, attachments, project, entryId: entry.id as string };
}

const file: AttachmentCreateBody = { fileName: 'shot.png', fileSize: '10', fileType: 'image/png', objectPath: 'a/b.png' };

describe('attachment rules (fake stores)', () => {
  it('registers the body fields only (server sets entry and uploader), audits it and emits no event', async () => {
    const { stores, attachments, project, entryId } = await setup();
    // Keys the gateway refuses (server-set and unknown properties); the core must ignore them all the same.
    const forged = unvalidated<AttachmentCreateBody>({ ...file, uploadedById: 'forged', entryId: 'forged', bogus: 1 });
    const a = await attachments.register(actor(), entryId, forged);
    expect(a).toMatchObject({ ...file, entryId, uploadedById: 'u1' });
    expect(a).not.toHaveProperty('bogus');
    expect(a).not.toHaveProperty('organizationId');
    expect(a).not.toHaveProperty('projectId');
    const [write] = stores.written;
    expect(write.events).toEqual([]);
    expect(write.rows[0].row).toMatchObject({
      entityType: 'attachment',
      action: 'created',
      entityId: a.id,
      entityName: 'shot.png',
      projectId: project.id,
      metadata: like({ entryId }),
    });
  });

  it('deletes with an audit record naming the file and its entry', async () => {
    const { stores, attachments, entryId } = await setup();
    const a = await attachments.register(actor(), entryId, file);
    await attachments.remove(actor(), a.id as string);
    expect(stores.written[1].rows[0].row).toMatchObject({
      action: 'deleted',
      entityId: a.id,
      entityName: 'shot.png',
      metadata: like({ entryId }),
    });
    expect(stores.attachments.rows).toEqual([]);
  });

  it("404s on another organization's or another project's entry and attachment; writes nothing", async () => {
    const { stores, attachments, entryId } = await setup();
    const a = await attachments.register(actor(), entryId, file);
    const writes = stores.written.length;
    const other = actor({ organizationId: OTHER_ORG });
    expect(await reasonOf(attachments.register(other, entryId, file))).toBe('not_found');
    expect(await reasonOf(attachments.list(other, entryId, { page: 1, pageSize: 25 }))).toBe('not_found');
    expect(await reasonOf(attachments.get(other, a.id as string))).toBe('not_found');
    expect(await reasonOf(attachments.remove(other, a.id as string))).toBe('not_found');
    const sibling = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    expect(await reasonOf(attachments.get(actor({ scope: 'project', scopedProjectId: sibling.id }), a.id as string))).toBe(
      'not_found',
    );
    expect(await reasonOf(attachments.get(actor(), 'not-a-uuid'))).toBe('not_found');
    expect(stores.written).toHaveLength(writes);
    expect(stores.attachments.rows).toHaveLength(1);
  });
});
