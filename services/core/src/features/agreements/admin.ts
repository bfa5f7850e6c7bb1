import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import { emit } from '../../outbox/record.ts';
import { systemAudit } from '../../lib/system-audit.ts';

/** A CLI mistake the operator should read (the CLI prints it and exits 1). */
export class AgreementAdminError extends Error {}

/**
 * `admin agreement create|sign` (contract.md): agreements cannot be created
 * through the API, so the CLI seeds them; signing stands in for the e-sign
 * provider's callback and emits agreement.signed with actorUserId null.
 */
export function createAgreementAdmin(db: Knex) {
  return {
    async create(projectId: string, title: string): Promise<{ id: string }> {
      if (!title?.trim()) throw new AgreementAdminError('--title is required');
      if (!isUuid(projectId)) throw new AgreementAdminError('unknown project');
      return db.transaction(async (trx) => {
        const project = await trx('projects').where({ id: projectId }).first('id', 'organizationId', 'clientId');
        if (!project) throw new AgreementAdminError('unknown project');
        const [row] = await trx('agreements')
          .insert({ organizationId: project.organizationId, projectId, clientId: project.clientId, title: title.trim() })
          .returning('*');
        await systemAudit(trx, { organizationId: project.organizationId, projectId, entityType: 'agreement', action: 'created', entityId: row.id, entityName: row.title });
        return { id: row.id as string };
      });
    },

    /** Marks every party signed; entering `signed` emits agreement.signed once (signing again changes nothing). */
    async sign(id: string): Promise<{ id: string; status: string }> {
      if (!isUuid(id)) throw new AgreementAdminError('unknown agreement');
      return db.transaction(async (trx) => {
        const row = await trx('agreements').where({ id }).forUpdate().first();
        if (!row) throw new AgreementAdminError('unknown agreement');
        if (row.status === 'signed') return { id, status: 'signed' };
        const [signed] = await trx('agreements')
          .where({ id })
          .update({ status: 'signed', signedAt: trx.fn.now(), updatedAt: trx.fn.now() })
          .returning('*');
        await systemAudit(trx, { organizationId: signed.organizationId, projectId: signed.projectId, entityType: 'agreement', action: 'signed', entityId: id, entityName: signed.title });
        await emit(trx, signed.organizationId, null, [{
          eventName: 'agreement.signed', entityType: 'agreement', entityId: id, projectId: signed.projectId, actorUserId: null,
          payload: { agreementId: id, projectId: signed.projectId, clientId: signed.clientId, status: 'signed' },
        }]);
        return { id, status: 'signed' };
      });
    },
  };
}
