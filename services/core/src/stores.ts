import type { Knex } from '@cluster/db';
import type { WriteRecord } from '@cluster/outbox';
import { createProjectStore, type ProjectStore } from './features/projects/store.ts';
import { recordWrite } from './shared/write.ts';
import { createEntryStore, type EntryStore } from './features/entries/store.ts';
import { createCommentStore, type CommentStore } from './features/comments/store.ts';
import { createAttachmentStore, type AttachmentStore } from './features/attachments/store.ts';
import { createReleaseStore, type ReleaseStore } from './features/releases/store.ts';
import { createIntegrationLinkStore, type IntegrationLinkStore } from './features/integration-links/store.ts';
import { createSearchStore, type SearchStore } from './features/search/store.ts';
import { createAuthStore, type AuthStore } from './features/auth/store.ts';
import { createIdempotencyStore, type IdempotencyStore } from './features/idempotency/store.ts';
import { createAuditEventStore, type AuditEventStore } from './features/audit-events/store.ts';

/**
 * Every store of the core, bound to one connection pool or one transaction. Services
 * take this (a unit of work): `transaction` runs a write with every store bound to
 * the same transaction, and `record` commits the write's audit record and events
 * (the one write path, packages/outbox `commitWrite`) in it. A feature adds its
 * store here and in fake-stores.ts.
 */
export interface Stores {
  projects: ProjectStore;
  /** Runs `work` in one transaction with every store bound to it (nested: a savepoint). */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
  /** Writes a change's audit record and events; atomic with the change inside `transaction`. */
  record(write: WriteRecord): Promise<void>;
  entries: EntryStore;
  comments: CommentStore;
  attachments: AttachmentStore;
  releases: ReleaseStore;
  integrationLinks: IntegrationLinkStore;
  search: SearchStore;
  auth: AuthStore;
  idempotency: IdempotencyStore;
  auditEvents: AuditEventStore;
}

/** The Postgres stores of the core over `db` (a pool or a transaction). */
export function createStores(db: Knex): Stores {
  return {
    projects: createProjectStore(db),
    transaction: (work) => db.transaction((trx) => work(createStores(trx))),
    record: async (write) => {
      await recordWrite(db, write);
    },
    entries: createEntryStore(db),
    comments: createCommentStore(db),
    attachments: createAttachmentStore(db),
    releases: createReleaseStore(db),
    integrationLinks: createIntegrationLinkStore(db),
    search: createSearchStore(db),
    auth: createAuthStore(db),
    idempotency: createIdempotencyStore(db),
    auditEvents: createAuditEventStore(db),
  };
}
