import { createFakeCodeHostStore } from './features/codehost/fake-store.ts';
import type { EntryRow } from './features/entries/store.ts';
import type { WriteRecord } from '@cluster/outbox';
import { createFakeProjectStore } from './features/projects/fake-store.ts';
import type { ExternalLinkRow } from './shared/external-ref.ts';
import type { MemberRow } from './features/members/store.ts';
import { createFakeTimeEntryStore } from './features/time-entries/fake-store.ts';
import { createFakeUserStore } from './features/users/fake-store.ts';
import { createFakeMemberStore } from './features/members/fake-store.ts';
import { createFakeWikiStore } from './features/wiki/fake-store.ts';
import { createFakeAgreementStore } from './features/agreements/fake-store.ts';
import { createFakeSnapshotStore } from './features/snapshots/fake-store.ts';
import { createFakeOrganizationStore } from './features/organizations/fake-store.ts';
import { createFakeApiKeyStore, createFakeSessionStore } from './features/credentials/fake-store.ts';
import type { Stores } from './stores.ts';
import type { ProjectRow } from './features/projects/store.ts';
import type { OrganizationRow } from './features/organizations/store.ts';
import type { UserRow } from './features/users/store.ts';
import { createFakeEntryStore } from './features/entries/fake-store.ts';
import { createFakeCommentStore } from './features/comments/fake-store.ts';
import { createFakeAttachmentStore } from './features/attachments/fake-store.ts';
import { createFakeReleaseStore } from './features/releases/fake-store.ts';
import { createFakeIntegrationLinkStore } from './features/integration-links/fake-store.ts';
import { createFakeSearchStore } from './features/search/fake-store.ts';
import { createFakeAuditEventStore } from './features/audit-events/fake-store.ts';
import { createFakeReleaseEvidenceStore } from './features/release-evidence/fake-store.ts';

/**
 * In-memory Stores for unit tests of the rules: no Postgres, no Kafka. `written`
 * collects every committed write (audit rows and events) for assertions. A
 * transaction is not isolated and does not roll back: test rules, not atomicity
 * (the real-Postgres tests in test/ cover that).
 */
export function createFakeStores() {
  const written: WriteRecord[] = [];
  // Tables more than one fake store reads: integration links (externalRefs) and memberships.
  const links: ExternalLinkRow[] = [];
  const memberships: MemberRow[] = [];
  const stores = {
    written,
    agreements: createFakeAgreementStore(),
    // Authentication reads a key with its creator's role and its organization's switch: joins of the fakes.
    apiKeys: createFakeApiKeyStore({
      users: (): UserRow[] => stores.users.rows,
      organizations: (): OrganizationRow[] => stores.organizations.rows,
    }),
    attachments: createFakeAttachmentStore(),
    auditEvents: createFakeAuditEventStore(written),
    codehost: createFakeCodeHostStore({ links, entries: (): EntryRow[] => stores.entries.rows }),
    comments: createFakeCommentStore(),
    // An entry create bumps its project's counter (one statement): the fake reads the fake projects.
    entries: createFakeEntryStore({ projects: (): ProjectRow[] => stores.projects.rows, written }),
    integrationLinks: createFakeIntegrationLinkStore(links),
    members: createFakeMemberStore(memberships),
    organizations: createFakeOrganizationStore(),
    projects: createFakeProjectStore(),
    releases: createFakeReleaseStore(),
    releaseEvidence: createFakeReleaseEvidenceStore(),
    search: createFakeSearchStore(),
    sessions: createFakeSessionStore({ users: (): UserRow[] => stores.users.rows }),
    snapshots: createFakeSnapshotStore(),
    timeEntries: createFakeTimeEntryStore([], links),
    users: createFakeUserStore([], memberships, links),
    wiki: createFakeWikiStore([], links),
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
