import { describe, expect, it } from 'vitest';
import { reasonOf, testActor } from '../../shared/test-kit.ts';
import { audits, events, setUp } from './test-world.ts';

describe('time entry sync (fake stores)', () => {
  it('syncs once per externalSystem + externalId: a repeat answers the same entry and link, created false, writing nothing', async () => {
    const { stores, project, other, user, time } = await setUp();
    const body = {
      projectId: project.id,
      userId: user.id,
      externalSystem: 'toggl',
      externalId: '42',
      workDate: '2026-03-05T23:30:00-05:00',
      minutes: 15,
    };
    const first = await time.sync(testActor(), body);
    const again = await time.sync(testActor(), { ...body, minutes: 20 });
    expect(first.created).toBe(true);
    expect(first.resource).toMatchObject({ workDate: '2026-03-05', source: 'toggl', created: true });
    expect(again).toMatchObject({
      created: false,
      resource: { id: first.resource.id, integrationLinkId: first.resource.integrationLinkId, minutes: 15 },
    });
    expect(events(stores)).toEqual(['integration_link.created', 'time.logged']);
    expect(audits(stores)[0].metadata).toMatchObject({ via: 'sync', externalSystem: 'toggl', externalId: '42' });
    expect(await reasonOf(time.sync(testActor(), { ...body, projectId: other.id }))).toBe('conflict');
    expect(await reasonOf(time.sync(testActor(), { ...body, externalId: ' ' }))).toBe('validation_error');
  });
});
