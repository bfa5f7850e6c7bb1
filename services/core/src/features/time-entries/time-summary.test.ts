import { describe, expect, it } from 'vitest';
import { TEST_ORG, reasonOf, testActor } from '../../shared/test-kit.ts';
import { developer, setUp } from './test-world.ts';

describe('time summary (fake stores)', () => {
  it('sums a time summary by status and by user (most minutes first), within a date range', async () => {
    const { stores, project, user, time } = await setUp();
    const bob = await stores.users.insert({
      organizationId: TEST_ORG,
      email: 'bob@example.test',
      name: 'Bob',
      role: 'developer',
    });
    const log = (userId: string, minutes: number, workDate = '2026-03-05', billable = true) =>
      time.create(testActor(), project.id, { userId, workDate, minutes, billable });
    const a = await log(user.id, 30);
    await log(user.id, 15, '2026-03-05', false);
    await log(bob.id, 60);
    await log(bob.id, 600, '2026-04-01');
    await time.submit(developer, a.resource.id as string);
    const summary = await time.timeSummary(testActor(), project.id, { to: '2026-03-31' });
    expect(summary).toEqual({
      projectId: project.id,
      releaseId: null,
      totalMinutes: 105,
      totalHours: '1.75',
      billableMinutes: 90,
      byStatus: { draft: 75, submitted: 30, approved: 0, rejected: 0, locked: 0, invoiced: 0 },
      byUser: [
        { userId: bob.id, totalMinutes: 60 },
        { userId: user.id, totalMinutes: 45 },
      ],
    });
    expect(await reasonOf(time.timeSummary(testActor(), project.id, { releaseId: 'x' }))).toBe('validation_error');
  });
});
