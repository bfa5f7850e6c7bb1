import type { ConnectRouter } from '@connectrpc/connect';
import { isUuid, type Knex } from '@cluster/db';
import { validation } from '@cluster/platform';
import { AuditService, AuthService, IdempotencyService, ProjectService } from '@cluster/proto';
import { AgreementService, MemberService, SnapshotService, TimeEntryService, UserService, WikiService } from '@cluster/proto';
import { SearchService } from '@cluster/proto';
import { createAuthService } from './auth/service.ts';
import { createAuditService } from './audit/service.ts';
import { createIdempotencyService } from './idempotency/service.ts';
import { createProjectService } from './features/projects/service.ts';
import { projectRpc } from './features/projects/rpc.ts';
import { createStores } from './stores.ts';
import { createTimeEntryService } from './features/time-entries/service.ts';
import { timeEntryRpc } from './features/time-entries/rpc.ts';
import { createUserService } from './features/users/service.ts';
import { createInviteService } from './features/users/invite.ts';
import { userRpc } from './features/users/rpc.ts';
import { createMemberService } from './features/members/service.ts';
import { memberRpc } from './features/members/rpc.ts';
import { createWikiService } from './features/wiki/service.ts';
import { wikiRpc } from './features/wiki/rpc.ts';
import { createAgreementService } from './features/agreements/service.ts';
import { agreementRpc } from './features/agreements/rpc.ts';
import { createSnapshotService } from './features/snapshots/service.ts';
import { snapshotRpc } from './features/snapshots/rpc.ts';
import { createSearchService, SEARCH_LIMIT } from './features/search/service.ts';
import { pageArgs, toListResponse } from './lib/list.ts';
import { registerEntryRpc } from './features/entries/rpc.ts';
import { registerCommentRpc } from './features/comments/rpc.ts';
import { registerAttachmentRpc } from './features/attachments/rpc.ts';
import { registerReleaseRpc } from './features/releases/rpc.ts';
import { registerIntegrationLinkRpc } from './features/integration-links/rpc.ts';
import { bodyOf } from './lib/struct.ts';

export interface CoreDeps {
  db: Knex;
}


/** The core's Connect routes over its domain services (composition happens in start.ts). */
export function buildCoreRoutes(deps: CoreDeps) {
  const auth = createAuthService(deps.db);
  const idem = createIdempotencyService(deps.db);
  const stores = createStores(deps.db);
  const projects = createProjectService(stores);
  const auditEvents = createAuditService(deps.db);
  const search = createSearchService(deps.db);

  return (router: ConnectRouter) => {
    router.service(AuthService, {
      async authenticate(req) {
        return auth.authenticate(req.key, req.requestId);
      },
      async getMe(req) {
        return { resource: await auth.me(req.actor) };
      },
    });
    router.service(IdempotencyService, {
      async beginIdempotent(req) {
        const r = await idem.begin(req.apiKeyId, req.key, req.fingerprint);
        return r.state === 'replay' ? { state: r.state, status: r.status, body: r.body, headers: r.headers } : { state: r.state };
      },
      async completeIdempotent(req) {
        await idem.complete(req.apiKeyId, req.key, req.status, req.body, req.headers);
        return {};
      },
      async releaseIdempotent(req) {
        await idem.release(req.apiKeyId, req.key);
        return {};
      },
    });
    router.service(ProjectService, projectRpc(projects));
    registerEntryRpc(router, deps.db);
    registerCommentRpc(router, deps.db);
    registerAttachmentRpc(router, deps.db);
    registerReleaseRpc(router, deps.db);
    registerIntegrationLinkRpc(router, deps.db);
    router.service(TimeEntryService, timeEntryRpc(createTimeEntryService(stores)));
    router.service(UserService, userRpc(createUserService(stores), createInviteService(stores)));
    router.service(MemberService, memberRpc(createMemberService(stores)));
    router.service(WikiService, wikiRpc(createWikiService(stores)));
    router.service(AgreementService, agreementRpc(createAgreementService(stores)));
    router.service(SnapshotService, snapshotRpc(createSnapshotService(stores)));
    router.service(AuditService, {
      async listAuditEvents(req) {
        const { page, pageSize } = pageArgs(req);
        return toListResponse(await auditEvents.list(req.actor, req.parentId || undefined, bodyOf(req.query), page, pageSize));
      },
      async recordAuditEvent(req) {
        if (req.id !== undefined && !isUuid(req.id)) throw validation([{ path: '/id', message: 'must be a UUID' }]);
        if (req.occurredAt !== undefined && Number.isNaN(Date.parse(req.occurredAt))) {
          throw validation([{ path: '/occurredAt', message: 'must be an RFC 3339 date-time' }]);
        }
        await auditEvents.record(req.actor, {
          id: req.id, occurredAt: req.occurredAt,
          entityType: req.entityType, action: req.action, entityId: req.entityId, entityName: req.entityName ?? null,
          metadata: bodyOf(req.metadata),
        });
        return {};
      },
    });
    // Search: was registered by the removed features/people-routes.ts; moves to its feature's rpc.ts with search's conversion.
    router.service(SearchService, {
      async search(req) {
        const data = await search.search(req.actor, bodyOf(req.query).q);
        return { data, page: 1, pageSize: SEARCH_LIMIT, total: data.length };
      },
    });
  };
}
