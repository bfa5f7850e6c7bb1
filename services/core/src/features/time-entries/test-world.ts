import { createFakeStores, type FakeStores } from '../../fake-stores.ts';
import { TEST_ORG, testActor } from '../../shared/test-kit.ts';
import { createTimeEntryService } from './service.ts';

/** The time entries' unit tests' world (crud, transitions, sync, summaries, service tests). For tests only. */

export const manager = testActor({ role: 'manager', userId: 'm1' });
export const developer = testActor({ role: 'developer', userId: 'd1' });

/** Fake stores with two projects, a user to log time for, and the service over them. */
export async function setUp() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });
  const other = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Other', description: '' });
  const user = await stores.users.insert({ organizationId: TEST_ORG, email: 'ada@example.test', name: 'Ada', role: 'developer' });
  return { stores, project, other, user, time: createTimeEntryService(stores) };
}

/** The names of every event written, in order. */
export const events = (stores: FakeStores) => stores.written.flatMap((w) => w.events.map((e) => e.eventName));
/** Every audit row written, in order. */
export const audits = (stores: FakeStores) => stores.written.flatMap((w) => w.rows.map((r) => r.row));
