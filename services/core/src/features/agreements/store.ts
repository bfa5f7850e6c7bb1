import type { Agreement, RowOf } from '@cluster/contracts';
import { isUuid, type Knex, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow } from '../../shared/find-by-id.ts';

/** A Agreement row: every field of the contract's Agreement answer (timestamps as Dates), and the columns the core keeps to itself. */
export type AgreementRow = RowOf<typeof Agreement> & { organizationId: string; clientId: string | null; updatedAt: Date };

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
      return paginate<AgreementRow>(db<AgreementRow>('agreements').where({ projectId }), page);
    },
    async find(organizationId, id) {
      if (!isUuid(id)) return undefined;
      return db<AgreementRow>('agreements').where({ id, organizationId }).first();
    },
    findById(id, opts = {}) {
      return findRow(db<AgreementRow>('agreements'), id, opts.lock ? 'update' : undefined);
    },
    async insert(values) {
      const [row] = await db<AgreementRow>('agreements').insert(values).returning('*');
      return row;
    },
    async markSigned(id) {
      const [row] = await db<AgreementRow>('agreements')
        .where({ id })
        .update({ status: 'signed', signedAt: db.fn.now(), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
  };
}
