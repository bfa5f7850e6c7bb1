import type { JsonValue } from '@bufbuild/protobuf';
import { MEMBER_FIELDS } from '@cluster/contracts';
import { isUuid, type Knex, jsonbValues, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { Values } from '../../shared/rows.ts';

/** A membership row: the contract's MEMBER_FIELDS, the columns a store reads (all of them today; an allow-list all the same). */
export interface MemberRow {
  id: string;
  projectId: string;
  userId: string;
  roleOverride: string | null;
  metadata: JsonValue | null;
  createdAt: Date;
}

/** Project memberships in Postgres: all SQL of the feature. */
export interface MemberStore {
  /** One page of a project's members. */
  list(projectId: string, page: PageArgs): Promise<Page<MemberRow>>;
  /** A member of the project by its id (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(projectId: string, memberId: string, opts?: { lock?: boolean }): Promise<MemberRow | undefined>;
  /** The membership of a user in a project, or undefined. */
  findByUser(projectId: string, userId: string): Promise<MemberRow | undefined>;
  /** Adds a member; undefined when the user is already one (nothing written). */
  insert(values: { projectId: string; userId: string } & Values<MemberRow>): Promise<MemberRow | undefined>;
  /** Adds several new members at once (a user invited into projects). */
  insertMany(values: { projectId: string; userId: string }[]): Promise<MemberRow[]>;
  update(id: string, values: Values<MemberRow>): Promise<MemberRow>;
  remove(id: string): Promise<void>;
}

// Columns stored as jsonb: which ones are is a detail of this table, so the contract does not list them.
const JSON_COLUMNS = ['metadata'];

/** The knex implementation of MemberStore. */
export function createMemberStore(db: Knex): MemberStore {
  return {
    list(projectId, page) {
      return paginate<MemberRow>(
        db<MemberRow>('project_members')
          .select(...MEMBER_FIELDS)
          .where({ projectId }),
        page,
      );
    },
    async find(projectId, memberId, opts = {}) {
      if (!isUuid(memberId)) return undefined;
      const q = db<MemberRow>('project_members')
        .select(...MEMBER_FIELDS)
        .where({ id: memberId, projectId });
      return opts.lock ? q.forUpdate().first() : q.first();
    },
    findByUser(projectId, userId) {
      return db<MemberRow>('project_members')
        .select(...MEMBER_FIELDS)
        .where({ projectId, userId })
        .first();
    },
    async insert(values) {
      const [row] = await db<MemberRow>('project_members')
        .insert(jsonbValues(values, JSON_COLUMNS))
        .onConflict(['projectId', 'userId'])
        .ignore()
        .returning(MEMBER_FIELDS);
      return row;
    },
    async insertMany(values) {
      const rows: MemberRow[] = await db<MemberRow>('project_members').insert(values).returning(MEMBER_FIELDS);
      return rows;
    },
    async update(id, values) {
      const [row] = await db<MemberRow>('project_members')
        .where({ id })
        .update(jsonbValues(values, JSON_COLUMNS))
        .returning(MEMBER_FIELDS);
      return row;
    },
    async remove(id) {
      await db<MemberRow>('project_members').where({ id }).del();
    },
  };
}
