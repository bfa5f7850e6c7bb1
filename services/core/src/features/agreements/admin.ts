import { isUuid } from '@cluster/db';
import { systemWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { agreementSignedEvent } from './events.ts';

/** A CLI mistake the operator should read (the CLI prints it and exits 1). */
export class AgreementAdminError extends Error {}

/**
 * `admin agreement create|sign` (docs/runbook.md, "Local operations"): agreements cannot be created
 * through the API, so the CLI seeds them; signing stands in for the e-sign
 * provider's callback and emits agreement.signed with actorUserId null.
 */
export function createAgreementAdmin(stores: Stores) {
  return {
    /** A pending_signature agreement of a project, for the project's client; audited as the operator's. */
    async create(projectId: string, title: string): Promise<{ id: string }> {
      if (!title?.trim()) throw new AgreementAdminError('--title is required');
      if (!isUuid(projectId)) throw new AgreementAdminError('unknown project');
      return stores.transaction(async (tx) => {
        const project = await tx.projects.findById(projectId);
        if (!project) throw new AgreementAdminError('unknown project');
        const row = await tx.agreements.insert({
          organizationId: project.organizationId,
          projectId,
          clientId: project.clientId,
          title: title.trim(),
        });
        await tx.record(
          systemWrite(project.organizationId, {
            entityType: 'agreement',
            action: 'created',
            entityId: row.id,
            entityName: row.title,
            projectId,
          }),
        );
        return { id: row.id };
      });
    },

    /** Marks every party signed; entering `signed` emits agreement.signed once (signing again changes nothing). */
    async sign(id: string): Promise<{ id: string; status: string }> {
      if (!isUuid(id)) throw new AgreementAdminError('unknown agreement');
      return stores.transaction(async (tx) => {
        const row = await tx.agreements.findById(id, { lock: true });
        if (!row) throw new AgreementAdminError('unknown agreement');
        if (row.status === 'signed') return { id, status: 'signed' };
        const signed = await tx.agreements.markSigned(id);
        await tx.record(
          systemWrite(
            signed.organizationId,
            { entityType: 'agreement', action: 'signed', entityId: id, entityName: signed.title, projectId: signed.projectId },
            [agreementSignedEvent(signed)],
          ),
        );
        return { id, status: 'signed' };
      });
    },
  };
}
