import type { ConnectRouter } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import {
  AttachmentService, AuditService, AuthService, CommentService, EntryService, IdempotencyService, IntegrationLinkService, ProjectService,
  ReleaseService, SearchService, TimeEntryService,
} from '@cluster/proto';
import { createProjectService } from './features/projects/service.ts';
import { projectRpc } from './features/projects/rpc.ts';
import { createStores } from './stores.ts';
import { timeEntryRoutes } from './features/time-entries/routes.ts';
import { registerPeopleRoutes } from './features/people-routes.ts';
import { createAuthService } from './features/auth/service.ts';
import { authRpc } from './features/auth/rpc.ts';
import { createIdempotencyService } from './features/idempotency/service.ts';
import { idempotencyRpc } from './features/idempotency/rpc.ts';
import { createEntryService } from './features/entries/service.ts';
import { entryRpc } from './features/entries/rpc.ts';
import { createCommentService } from './features/comments/service.ts';
import { commentRpc } from './features/comments/rpc.ts';
import { createAttachmentService } from './features/attachments/service.ts';
import { attachmentRpc } from './features/attachments/rpc.ts';
import { createReleaseService } from './features/releases/service.ts';
import { releaseRpc } from './features/releases/rpc.ts';
import { createIntegrationLinkService } from './features/integration-links/service.ts';
import { integrationLinkRpc } from './features/integration-links/rpc.ts';
import { createSearchService } from './features/search/service.ts';
import { searchRpc } from './features/search/rpc.ts';
import { createAuditEventService } from './features/audit-events/service.ts';
import { auditEventRpc } from './features/audit-events/rpc.ts';

export interface CoreDeps {
  db: Knex;
}


/** The core's Connect routes over its domain services (composition happens in start.ts). */
export function buildCoreRoutes(deps: CoreDeps) {
  const stores = createStores(deps.db);
  const projects = createProjectService(stores);
  const auth = createAuthService(stores);
  const idempotency = createIdempotencyService(stores);
  const entries = createEntryService(stores);
  const comments = createCommentService(stores);
  const attachments = createAttachmentService(stores);
  const releases = createReleaseService(stores);
  const integrationLinks = createIntegrationLinkService(stores);
  const search = createSearchService(stores);
  const auditEvents = createAuditEventService(stores);

  return (router: ConnectRouter) => {
    router.service(AuthService, authRpc(auth));
    router.service(IdempotencyService, idempotencyRpc(idempotency));
    router.service(ProjectService, projectRpc(projects));
    router.service(EntryService, entryRpc(entries));
    router.service(CommentService, commentRpc(comments));
    router.service(AttachmentService, attachmentRpc(attachments));
    router.service(ReleaseService, releaseRpc(releases));
    router.service(IntegrationLinkService, integrationLinkRpc(integrationLinks));
    router.service(TimeEntryService, timeEntryRoutes(deps.db));
    router.service(AuditService, auditEventRpc(auditEvents));
    router.service(SearchService, searchRpc(search));
    registerPeopleRoutes(router, deps.db);
  };
}
