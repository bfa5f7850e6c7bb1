import { randomUUID } from 'node:crypto';
import type { Knex } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';

/**
 * Commits `count` entry.created events of the organization's first project straight into the core's
 * outbox, in one transaction: the delivery path's load without the API's CPU in the way.
 */
export async function injectEntryCreated(core: Knex, org: { orgId: string; projectIds: string[] }, count: number): Promise<void> {
  await core.transaction((trx) =>
    commitWrite(trx, 'core', {
      rows: [],
      events: Array.from({ length: count }, (_, i) => ({
        eventName: 'entry.created',
        entityType: 'entry',
        entityId: randomUUID(),
        organizationId: org.orgId,
        projectId: org.projectIds[0],
        actorUserId: null,
        payload: { entryId: randomUUID(), projectId: org.projectIds[0], title: `Injected #${i}`, type: 'bug_report' },
      })),
    }),
  );
}
