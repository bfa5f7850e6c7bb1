import { AUDIT_EVENT_FILTERS } from '@cluster/contracts';
import { isUuid } from '@cluster/db';
import type { Actor } from '@cluster/proto';
import { DomainError, requireActor, validation, type PageArgs, type ServiceName, presentPage } from '@cluster/platform';
import { AUDIT_ENTITY_TYPES } from '../../callers.ts';
import { visibleProjectId } from '../../shared/access.ts';
import { apiWrite, type AuditRecord } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { presentAuditEvent } from './presenter.ts';
import type { AuditFilter } from './store.ts';

/**
 * Audit events: the organization's, or one project's; a project key sees only its
 * project. Other services (delivery's webhook subscriptions) record theirs here.
 * Rules only; SQL is in the store.
 */
export function createAuditEventService(stores: Stores) {
  return {
    /**
     * Records an audit event reported by service `via` for a write it made with this actor (the
     * actor its token carries: the record goes to that actor's organization). `id` (a UUID, chosen
     * by the caller) makes a retry record nothing new; `occurredAt` (RFC 3339) dates a forwarded
     * write. Either malformed: 400. An entity type not of `via`'s own writes: 403. The record names
     * `via` (`metadata.service`), whatever the message's metadata says.
     */
    async record(actorIn: Actor | undefined, via: ServiceName | undefined, rec: AuditRecord): Promise<void> {
      if (rec.id !== undefined && !isUuid(rec.id)) throw validation([{ path: '/id', message: 'must be a UUID' }]);
      if (rec.occurredAt !== undefined && Number.isNaN(Date.parse(rec.occurredAt))) {
        throw validation([{ path: '/occurredAt', message: 'must be an RFC 3339 date-time' }]);
      }
      const actor = requireActor(actorIn);
      if (!via || !AUDIT_ENTITY_TYPES[via]?.includes(rec.entityType)) {
        throw new DomainError('forbidden', `${via ?? 'this caller'} may not record ${rec.entityType} events`);
      }
      await stores.transaction((tx) => tx.record(apiWrite(actor, { ...rec, metadata: { ...rec.metadata, service: via } })));
    },

    async list(actorIn: Actor | undefined, projectId: string | undefined, filters: Record<string, unknown>, page: PageArgs) {
      const actor = requireActor(actorIn);
      if (projectId) await projectInScope(stores.projects, actor, projectId);
      const filter: AuditFilter = {};
      for (const f of AUDIT_EVENT_FILTERS) if (typeof filters[f] === 'string') filter[f] = filters[f];
      const rows = await stores.auditEvents.list(
        actor.organizationId,
        { ...filter, projectId: projectId ?? visibleProjectId(actor) },
        page,
      );
      return presentPage(rows, presentAuditEvent);
    },
  };
}
