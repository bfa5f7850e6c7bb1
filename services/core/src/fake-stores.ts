import type { WriteRecord } from '@cluster/outbox';
import { createFakeProjectStore } from './features/projects/fake-store.ts';
import type { Stores } from './stores.ts';
import type { ProjectRow } from './features/projects/store.ts';
import { createFakeEntryStore } from './features/entries/fake-store.ts';
import { createFakeCommentStore } from './features/comments/fake-store.ts';
import { createFakeAttachmentStore } from './features/attachments/fake-store.ts';
import { createFakeReleaseStore } from './features/releases/fake-store.ts';
import { createFakeIntegrationLinkStore } from './features/integration-links/fake-store.ts';
import { createFakeSearchStore } from './features/search/fake-store.ts';
import { createFakeAuthStore } from './features/auth/fake-store.ts';
import { createFakeIdempotencyStore } from './features/idempotency/fake-store.ts';
import { createFakeAuditEventStore } from './features/audit-events/fake-store.ts';

/**
 * In-memory Stores for unit tests of the rules: no Postgres, no Kafka. `written`
 * collects every committed write (audit rows and events) for assertions. A
 * transaction is not isolated and does not roll back: test rules, not atomicity
 * (the real-Postgres tests in test/ cover that).
 */
export function createFakeStores() {
  const written: WriteRecord[] = [];
  const stores = {
    written,
    projects: createFakeProjectStore(),
    transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T> {
      return work(stores);
    },
    async record(write: WriteRecord): Promise<void> {
      written.push(write);
    },
    // An entry create bumps its project's counter (one statement): the fake reads the fake projects.
    entries: createFakeEntryStore({ projects: (): ProjectRow[] => stores.projects.rows, written }),
    comments: createFakeCommentStore(),
    attachments: createFakeAttachmentStore(),
    releases: createFakeReleaseStore(),
    integrationLinks: createFakeIntegrationLinkStore(),
    search: createFakeSearchStore(),
    auth: createFakeAuthStore(),
    idempotency: createFakeIdempotencyStore(),
    auditEvents: createFakeAuditEventStore(written),
  } satisfies Stores & { written: WriteRecord[] };
  return stores;
}
export type FakeStores = ReturnType<typeof createFakeStores>;
