import type { ActorEvent } from '../../shared/write.ts';
import type { AgreementRow } from './store.ts';

/** agreement.signed: entering `signed`, by the e-sign provider's callback (no acting user). */
export function agreementSignedEvent(row: AgreementRow): ActorEvent {
  return {
    eventName: 'agreement.signed',
    entityType: 'agreement',
    entityId: row.id,
    projectId: row.projectId,
    actorUserId: null,
    payload: { agreementId: row.id, projectId: row.projectId, clientId: row.clientId, status: 'signed' },
  };
}
