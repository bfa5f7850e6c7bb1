import { isUuid, type Knex, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findById } from '../../shared/find-by-id.ts';

/** An agreement row as stored. `projectId` null: organization-wide. */
export type AgreementRow = Record<string, unknown> & {
  id: string;
  organizationId: string;
  projectId: string | null;
  clientId: string | null;
  title: string;
  status: string;
};

/** Agreements in Postgres: all SQL of the feature (read over the API, written by the admin CLI). */
export interface AgreementStore {
  /** One page of a project's agreements. */
  list(projectId: string, page: PageArgs): Promise<Page<AgreementRow>>;
  /** An agreement of the organization, or undefined. Non-UUID ids find nothing. */
  find(organizationId: string, id: string): Promise<AgreementRow | undefined>;
  /** An agreement of any organization (locked for the transaction with `lock`): the operator names it by id alone. */
  findById(id: string, opts?: { lock?: boolean }): Promise<AgreementRow | undefined>;
  insert(values: { organizationId: string; projectId: string; clientId: string | null; title: string }): Promise<AgreementRow>;
  /** Marks every party signed, now. */
  markSigned(id: string): Promise<AgreementRow>;
}

/** The knex implementation of AgreementStore. */
export function createAgreementStore(db: Knex): AgreementStore {
  return {
    list(projectId, page) {
      return paginate<AgreementRow>(db('agreements').where({ projectId }), page);
    },
    async find(organizationId, id) {
      if (!isUuid(id)) return undefined;
      return db('agreements').where({ id, organizationId }).first() as Promise<AgreementRow | undefined>;
    },
    findById(id, opts = {}) {
      return findById<AgreementRow>(db, 'agreements', id, opts.lock ? 'update' : undefined);
    },
    async insert(values) {
      const [row] = await db('agreements').insert(values).returning('*');
      return row as AgreementRow;
    },
    async markSigned(id) {
      const [row] = await db('agreements')
        .where({ id })
        .update({ status: 'signed', signedAt: db.fn.now(), updatedAt: db.fn.now() })
        .returning('*');
      return row as AgreementRow;
    },
  };
}
