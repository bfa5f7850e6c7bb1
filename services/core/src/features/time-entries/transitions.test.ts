import { describe, expect, it } from 'vitest';
import type { TimeEntryReasonBody } from '@cluster/contracts';
import { reasonOf, testActor, unvalidated } from '../../shared/test-kit.ts';
import { audits, developer, events, manager, setUp } from './test-world.ts';

describe('time entry approval moves (fake stores)', () => {
  it('walks the state machine with one event and one audit record per move', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource } = await time.create(testActor(), project.id, { userId: user.id, workDate: '2026-03-05', minutes: 60 });
    const id = resource.id as string;
    expect((await time.submit(developer, id)).resource.status).toBe('submitted');
    expect((await time.reject(manager, id, { reason: ' too vague ' })).resource.status).toBe('rejected');
    expect((await time.submit(developer, id)).resource.status).toBe('submitted');
    expect((await time.approve(manager, id, { note: 'ok' })).resource.status).toBe('locked');
    expect((await time.unlock(manager, id, { reason: 'typo' })).resource.status).toBe('draft');
    expect(events(stores)).toEqual([
      'time.logged',
      'time.submitted',
      'time.rejected',
      'time.submitted',
      'time.approved',
      'time.unlocked',
    ]);
    expect(
      audits(stores).map((a) => [
        a.action,
        (a.metadata as Record<string, unknown>).previousStatus,
        (a.metadata as Record<string, unknown>).newStatus,
      ]),
    ).toEqual([
      ['created', undefined, undefined],
      ['submitted', 'draft', 'submitted'],
      ['rejected', 'submitted', 'rejected'],
      ['submitted', 'rejected', 'submitted'],
      ['approved', 'submitted', 'locked'],
      ['unlocked', 'locked', 'draft'],
    ]);
    const payloads = stores.written.map((w) => w.events[0].payload);
    expect(payloads[2]).toMatchObject({ status: 'rejected', rejecterUserId: 'm1', reason: 'too vague' });
    expect(payloads[4]).toMatchObject({ status: 'locked', approverUserId: 'm1' });
    expect(payloads[5]).toMatchObject({ status: 'locked', newStatus: 'draft', unlockedByUserId: 'm1', reason: 'typo' });
    expect(audits(stores)[4].metadata).toMatchObject({ note: 'ok' });
  });

  it('refuses moves the machine does not allow (409 with the current status) and writes nothing for them', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource } = await time.create(testActor(), project.id, { userId: user.id, workDate: '2026-03-05', minutes: 60 });
    const id = resource.id as string;
    await expect(time.approve(manager, id, {})).rejects.toMatchObject({
      reason: 'conflict',
      details: { currentStatus: 'draft', allowedFrom: ['submitted'] },
    });
    expect(await reasonOf(time.unlock(manager, id, { reason: 'x' }))).toBe('conflict');
    await time.submit(developer, id);
    expect(await reasonOf(time.submit(developer, id))).toBe('conflict');
    expect(await reasonOf(time.update(developer, id, { minutes: 5 }))).toBe('conflict');
    expect(events(stores)).toEqual(['time.logged', 'time.submitted']);
  });

  it('lets only managers and admins approve, reject and unlock, and requires a reason to reject or unlock', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource } = await time.create(testActor(), project.id, { userId: user.id, workDate: '2026-03-05', minutes: 60 });
    const id = resource.id as string;
    await time.submit(developer, id);
    for (const role of ['developer', 'user', 'client']) {
      expect(await reasonOf(time.approve(testActor({ role }), id, {}))).toBe('forbidden');
      expect(await reasonOf(time.reject(testActor({ role }), id, { reason: 'no' }))).toBe('forbidden');
    }
    expect(await reasonOf(time.reject(manager, id, { reason: '   ' }))).toBe('validation_error');
    expect(await reasonOf(time.approve(testActor({ role: 'platform_admin' }), id, {}))).toBe('no error');
    expect(await reasonOf(time.unlock(developer, id, { reason: 'x' }))).toBe('forbidden');
    // No reason: the gateway refuses it (ReasonBody requires one); the core checks it all the same.
    expect(await reasonOf(time.unlock(manager, id, unvalidated<TimeEntryReasonBody>({})))).toBe('validation_error');
    expect(events(stores)).toEqual(['time.logged', 'time.submitted', 'time.approved']);
  });
});
