import type { WriteRecord } from '@cluster/outbox';
import { createFakeProjectStore } from './features/projects/fake-store.ts';
import { createFakeEntryStore } from './features/entries/fake-store.ts';
import { createFakeCommentStore } from './features/comments/fake-store.ts';
import { createFakeAttachmentStore } from './features/attachments/fake-store.ts';
import { createFakeReleaseStore } from './features/releases/fake-store.ts';
import { createFakeIntegrationLinkStore } from './features/integration-links/fake-store.ts';
import { createFakeSearchStore } from './features/search/fake-store.ts';
import { createFakeAuthStore } from './features/auth/fake-store.ts';
import { createFakeIdempotencyStore } from './features/idempotency/fake-store.ts';
import { createFakeAuditEventStore } from './features/audit-events/fake-store.ts';
import type { ExternalLinkRow } from './shared/external-ref.ts';
import type { Stores } from './stores.ts';

/**
 * In-memory Stores for unit tests of the rules: no Postgres, no Kafka. `written`
 * collects every committed write (audit rows and events) for assertions. A
 * transaction is not isolated and does not roll back: test rules, not atomicity
 * (the real-Postgres tests in test/ cover that).
 */
export function createFakeStores() {
  const written: WriteRecord[] = [];
  const projects = createFakeProjectStore();
  const links: ExternalLinkRow[] = [];
  const stores = {
    written,
    projects,
    entries: createFakeEntryStore({ projects: projects.rows, written }),
    comments: createFakeCommentStore(),
    attachments: createFakeAttachmentStore(),
    releases: createFakeReleaseStore(),
    integrationLinks: createFakeIntegrationLinkStore(links),
    search: createFakeSearchStore(),
    auth: createFakeAuthStore(),
    idempotency: createFakeIdempotencyStore(),
    auditEvents: createFakeAuditEventStore(written),
    transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T> {
      return work(stores);
    },
    async record(write: WriteRecord): Promise<void> {
      written.push(write);
    },
  } satisfies Stores & { written: WriteRecord[] };
  return stores;
}
export type FakeStores = ReturnType<typeof createFakeStores>;
