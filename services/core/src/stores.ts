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
import { createApiKeyStore, type ApiKeyStore } from './features/api-keys/store.ts';
import { recordWrite } from './shared/write.ts';

/**
 * Every store of the core, bound to one connection pool or one transaction. Services
 * take this (a unit of work): `transaction` runs a write with every store bound to
 * the same transaction, and `record` commits the write's audit record and events
 * (the one write path, packages/outbox `commitWrite`) in it. A feature adds its
 * store here and in fake-stores.ts.
 */
export interface Stores {
  projects: ProjectStore;
  timeEntries: TimeEntryStore;
  users: UserStore;
  members: MemberStore;
  wiki: WikiStore;
  agreements: AgreementStore;
  snapshots: SnapshotStore;
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  /** Runs `work` in one transaction with every store bound to it (nested: a savepoint). */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
  /** Writes a change's audit record and events; atomic with the change inside `transaction`. */
  record(write: WriteRecord): Promise<void>;
}

/** The Postgres stores of the core over `db` (a pool or a transaction). */
export function createStores(db: Knex): Stores {
  return {
    projects: createProjectStore(db),
    timeEntries: createTimeEntryStore(db),
    users: createUserStore(db),
    members: createMemberStore(db),
    wiki: createWikiStore(db),
    agreements: createAgreementStore(db),
    snapshots: createSnapshotStore(db),
    organizations: createOrganizationStore(db),
    apiKeys: createApiKeyStore(db),
    transaction: (work) => db.transaction((trx) => work(createStores(trx))),
    record: async (write) => {
      await recordWrite(db, write);
    },
  };
}
