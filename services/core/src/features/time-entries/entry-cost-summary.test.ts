import { describe, expect, it } from 'vitest';
import { OTHER_ORG, TEST_ORG, reasonOf, testActor } from '../../shared/test-kit.ts';
import { setUp } from './test-world.ts';

describe("the entries' cost summary (fake stores)", () => {
  it("answers a cost summary in the organization's currency (USD when it has none)", async () => {
    const { stores, project, time } = await setUp();
    stores.timeEntries.costs.set(project.id, {
      plannedCost: '10.00',
      actualCost: '8.50',
      approvedCost: null,
      pendingCost: '8.50',
    });
    expect(await time.costSummary(testActor(), project.id)).toEqual({
      projectId: project.id,
      currency: 'USD',
      plannedCost: '10.00',
      actualCost: '8.50',
      approvedCost: null,
      pendingCost: '8.50',
    });
    stores.organizations.rows.push({ id: TEST_ORG, name: 'Acme', apiEnabled: true, currency: 'EUR', createdAt: new Date() });
    expect(await time.costSummary(testActor(), project.id)).toMatchObject({ currency: 'EUR' });
    expect(await reasonOf(time.costSummary(testActor({ organizationId: OTHER_ORG }), project.id))).toBe('not_found');
  });
});
