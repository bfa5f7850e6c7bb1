import type { Knex } from '@cluster/db';
import type { WriteRecord } from '@cluster/outbox';
import { createProjectStore, type ProjectStore } from './features/projects/store.ts';
import { createTimeEntryStore, type TimeEntryStore } from './features/time-entries/store.ts';
import { createUserStore, type UserStore } from './features/users/store.ts';
import { createMemberStore, type MemberStore } from './features/members/store.ts';
import { createWikiStore, type WikiStore } from './features/wiki/store.ts';
import { createAgreementStore, type AgreementStore } from './features/agreements/store.ts';
import { createSnapshotStore, type SnapshotStore } from './features/snapshots/store.ts';
import { createOrganizationStore, type OrganizationStore } from './features/organizations/store.ts';
import { createApiKeyStore, createSessionStore, type ApiKeyStore, type SessionStore } from './features/credentials/store.ts';
import { recordWrite } from './shared/write.ts';
import { createEntryStore, type EntryStore } from './features/entries/store.ts';
import { createCommentStore, type CommentStore } from './features/comments/store.ts';
import { createAttachmentStore, type AttachmentStore } from './features/attachments/store.ts';
import { createReleaseStore, type ReleaseStore } from './features/releases/store.ts';
import { createIntegrationLinkStore, type IntegrationLinkStore } from './features/integration-links/store.ts';
import { createSearchStore, type SearchStore } from './features/search/store.ts';
import { createAuditEventStore, type AuditEventStore } from './features/audit-events/store.ts';
import { createReleaseEvidenceStore, type ReleaseEvidenceStore } from './features/release-evidence/store.ts';
import { createCodeHostStore, type CodeHostStore } from './features/codehost/store.ts';

/**
 * Every store of the core, bound to one connection pool or one transaction. Services
 * take this (a unit of work): `transaction` runs a write with every store bound to
 * the same transaction, and `record` commits the write's audit record and events
 * (the one write path, packages/outbox `commitWrite`) in it. A feature adds its
 * store here and in fake-stores.ts.
 */
export interface Stores {
  agreements: AgreementStore;
  apiKeys: ApiKeyStore;
  attachments: AttachmentStore;
  auditEvents: AuditEventStore;
  codehost: CodeHostStore;
  comments: CommentStore;
  entries: EntryStore;
  integrationLinks: IntegrationLinkStore;
  members: MemberStore;
  organizations: OrganizationStore;
  projects: ProjectStore;
  releases: ReleaseStore;
  releaseEvidence: ReleaseEvidenceStore;
  search: SearchStore;
  sessions: SessionStore;
  snapshots: SnapshotStore;
  timeEntries: TimeEntryStore;
  users: UserStore;
  wiki: WikiStore;
  /** Runs `work` in one transaction with every store bound to it (nested: a savepoint). */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
  /** Writes a change's audit record and events; atomic with the change inside `transaction`. */
  record(write: WriteRecord): Promise<void>;
}

/** The Postgres stores of the core over `db` (a pool or a transaction). */
export function createStores(db: Knex): Stores {
  return {
    agreements: createAgreementStore(db),
    apiKeys: createApiKeyStore(db),
    attachments: createAttachmentStore(db),
    auditEvents: createAuditEventStore(db),
    codehost: createCodeHostStore(db),
    comments: createCommentStore(db),
    entries: createEntryStore(db),
    integrationLinks: createIntegrationLinkStore(db),
    members: createMemberStore(db),
    organizations: createOrganizationStore(db),
    projects: createProjectStore(db),
    releases: createReleaseStore(db),
    releaseEvidence: createReleaseEvidenceStore(db),
    search: createSearchStore(db),
    sessions: createSessionStore(db),
    snapshots: createSnapshotStore(db),
    timeEntries: createTimeEntryStore(db),
    users: createUserStore(db),
    wiki: createWikiStore(db),
    transaction: (work) => db.transaction((trx) => work(createStores(trx))),
    record: async (write) => {
      await recordWrite(db, write);
    },
  };
}
