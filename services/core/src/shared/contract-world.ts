import { randomUUID } from 'node:crypto';
import type { Knex } from '@cluster/db';
import { createFakeStores, type FakeStores } from '../fake-stores.ts';
import { createStores, type Stores } from '../stores.ts';
import type { EntryRow, NewEntry } from '../features/entries/store.ts';
import type { ProjectRow } from '../features/projects/store.ts';
import type { ReleaseRow } from '../features/releases/store.ts';
import type { UserRow } from '../features/users/store.ts';
import { createEvents } from '../features/entries/events.ts';
import type { WriteRecord } from '@cluster/outbox';
import { systemWrite, type AuditRecord } from './write.ts';

/**
 * The world a core store contract test runs in (`describeStoreContract`, @cluster/db/store-contract): the
 * core's stores, fake or on Postgres, and the records other tables hold that a store reads. Seeds
 * go through the stores' own writes, so a world on Postgres gets real rows (foreign keys, triggers);
 * a fake world also puts them in the canned tables of the fakes that do not read other fakes
 * (entries' users, time entries' work items, integration links' targets, search documents): what
 * the database does by itself. For tests only.
 */
export interface CoreWorld {
  kind: 'fake' | 'postgres';
  stores: Stores;
  /** The fakes, to seed what only a fake needs by hand (undefined on Postgres). */
  fakes?: FakeStores;
  /** The database (undefined for a fake world): for reads the interfaces do not offer. */
  db?: Knex;
  organization(): Promise<string>;
  user(organizationId: string, over?: Record<string, unknown>): Promise<UserRow>;
  project(organizationId: string, over?: Record<string, unknown>): Promise<ProjectRow>;
  entry(project: ProjectRow, over?: Record<string, unknown>): Promise<EntryRow>;
  release(project: ProjectRow, over?: Record<string, unknown>): Promise<ReleaseRow>;
  /** An audit record of the organization, committed as a write's is (Stores.record). */
  audit(organizationId: string, record: AuditRecord): Promise<void>;
}

const tag = () => randomUUID().slice(0, 8);
/** A text column's value as search indexes it (NULL: nothing). */
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The write of an entry's create as the service makes it: one audit record and its events. Its
 * shape matters on Postgres: the create is one prepared statement, whose text must not vary.
 */
export function entryWrite(entry: NewEntry, organizationId = entry.organizationId): WriteRecord {
  const audit = { entityType: 'entry', action: 'created', entityId: entry.id, projectId: entry.projectId };
  return systemWrite(organizationId, audit, createEvents(entry));
}

/** A new entry with the columns a create must have, `over` applied. */
export function newEntry(project: ProjectRow, over: Record<string, unknown> = {}): NewEntry {
  return {
    id: randomUUID(),
    projectId: project.id,
    organizationId: project.organizationId,
    creatorId: null,
    type: 'bug',
    title: `entry ${tag()}`,
    description: 'what happened',
    status: 'open',
    priority: 'medium',
    ...over,
  };
}

function world(kind: CoreWorld['kind'], stores: Stores, hooks: Partial<SeedHooks> = {}): CoreWorld {
  const on: SeedHooks = { user() {}, project() {}, entry() {}, release() {}, ...hooks };
  return {
    kind,
    stores,
    async organization() {
      return (await stores.organizations.insert(`org ${tag()}`)).id;
    },
    async user(organizationId, over = {}) {
      const row = await stores.users.insert({
        organizationId,
        email: `u-${tag()}@example.com`,
        name: 'A User',
        role: 'member',
        ...over,
      });
      on.user(row);
      return row;
    },
    async project(organizationId, over = {}) {
      const row = await stores.projects.insert({
        organizationId,
        clientId: 'client-1',
        name: `project ${tag()}`,
        description: 'a project',
        ...over,
      });
      on.project(row);
      return row;
    },
    async entry(project, over = {}) {
      const entry = newEntry(project, over);
      const row = await stores.entries.create(entry, entryWrite(entry));
      if (!row) throw new Error(`no project ${project.id} for the entry`);
      on.entry(row);
      return row;
    },
    async release(project, over = {}) {
      const row = await stores.releases.insert({
        projectId: project.id,
        organizationId: project.organizationId,
        name: `release ${tag()}`,
        startDate: new Date('2024-01-01T00:00:00Z'),
        endDate: new Date('2024-02-01T00:00:00Z'),
        ...over,
      });
      on.release(row);
      return row;
    },
    async audit(organizationId, record) {
      await stores.record(systemWrite(organizationId, record));
    },
  };
}

interface SeedHooks {
  user(row: UserRow): void;
  project(row: ProjectRow): void;
  entry(row: EntryRow): void;
  release(row: ReleaseRow): void;
}

/** The core's stores on `db` (the contract test file's database). */
export function postgresWorld(db: Knex): CoreWorld {
  return { ...world('postgres', createStores(db)), db };
}

/** The fake stores, with the canned tables of the fakes kept as the database would keep them. */
export function fakeWorld(): CoreWorld {
  const fakes = createFakeStores();
  // Release evidence reads the entries and the audit trail: the fakes' own tables.
  const evidence = fakes.releaseEvidence.data;
  evidence.entries = fakes.entries.rows;
  Object.defineProperty(evidence, 'audit', { get: () => fakes.auditEvents.rows() });
  const searchable = (
    type: string,
    row: { id: string; organizationId: string },
    projectId: string,
    title: unknown,
    body: unknown[],
  ) =>
    fakes.search.documents.push({
      type,
      id: row.id,
      organizationId: row.organizationId,
      projectId,
      title: text(title),
      body: body.map(text).join(' '),
    });
  const target = (
    type: 'user' | 'project' | 'entry' | 'release',
    row: { id: string; organizationId: string },
    projectId: string | null,
  ) => fakes.integrationLinks.targets.push({ type, id: row.id, organizationId: row.organizationId, projectId });
  return {
    ...world('fake', fakes, {
      user(row) {
        fakes.entries.users.push({ id: row.id, organizationId: row.organizationId });
        target('user', row, null);
      },
      project(row) {
        target('project', row, row.id);
        searchable('project', row, row.id, row.name, [row.description]);
      },
      entry(row) {
        fakes.timeEntries.workItems.push({ kind: 'entry', id: row.id, projectId: row.projectId });
        target('entry', row, row.projectId);
        searchable('entry', row, row.projectId, row.title, [row.description]);
      },
      release(row) {
        fakes.timeEntries.workItems.push({ kind: 'release', id: row.id, projectId: row.projectId });
        target('release', row, row.projectId);
        searchable('release', row, row.projectId, row.name, [row.description, row.version]);
      },
    }),
    fakes,
  };
}
