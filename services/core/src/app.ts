import type { ConnectRouter } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import {
  AgreementService,
  AttachmentService,
  AuditService,
  AuthService,
  OAuthService,
  CodeHostService,
  CommentService,
  EntryService,
  IntegrationLinkService,
  MemberService,
  ProjectService,
  ReleaseService,
  ReleaseEvidenceService,
  SessionService,
  SearchService,
  SnapshotService,
  TimeEntryService,
  UserService,
  WikiService,
} from '@cluster/proto';
import { createTokenVerifier, withOpenCache, type CallerTrust, type SecretBox, type ServiceKeys } from '@cluster/platform';
import { corePolicy } from './callers.ts';
import { createStores, type Stores } from './stores.ts';
import { createAgreementService } from './features/agreements/service.ts';
import { codehostSecretBox } from './features/codehost/box.ts';
import { codeHostRpc } from './features/codehost/rpc.ts';
import { createCodeHostService } from './features/codehost/service.ts';
import { agreementRpc } from './features/agreements/rpc.ts';
import { createAttachmentService } from './features/attachments/service.ts';
import { attachmentRpc } from './features/attachments/rpc.ts';
import { createAuditEventService } from './features/audit-events/service.ts';
import { auditEventRpc } from './features/audit-events/rpc.ts';
import { createAuthService, effectivePermissions } from './features/credentials/auth-service.ts';
import { createOAuthGrants, type OAuthGrants } from './features/oauth/grants.ts';
import { oauthRpc } from './features/oauth/rpc.ts';
import { createOAuthStore } from './features/oauth/store.ts';
import { authRpc, sessionRpc } from './features/credentials/rpc.ts';
import { createSessionRules } from './features/credentials/sessions.ts';
import { createCommentService } from './features/comments/service.ts';
import { commentRpc } from './features/comments/rpc.ts';
import { createEntryService } from './features/entries/service.ts';
import { entryRpc } from './features/entries/rpc.ts';
import { createIntegrationLinkService } from './features/integration-links/service.ts';
import { integrationLinkRpc } from './features/integration-links/rpc.ts';
import { createMemberService } from './features/members/service.ts';
import { memberRpc } from './features/members/rpc.ts';
import { createProjectService } from './features/projects/service.ts';
import { projectRpc } from './features/projects/rpc.ts';
import { createReleaseService } from './features/releases/service.ts';
import { releaseRpc } from './features/releases/rpc.ts';
import { createReleaseEvidenceService } from './features/release-evidence/service.ts';
import { releaseEvidenceRpc } from './features/release-evidence/rpc.ts';
import { createSearchService } from './features/search/service.ts';
import { searchRpc } from './features/search/rpc.ts';
import { createSnapshotService } from './features/snapshots/service.ts';
import { snapshotRpc } from './features/snapshots/rpc.ts';
import { createTimeEntryService } from './features/time-entries/service.ts';
import { timeEntryRpc } from './features/time-entries/rpc.ts';
import { createInviteService } from './features/users/invite.ts';
import { createUserService } from './features/users/service.ts';
import { userRpc } from './features/users/rpc.ts';
import { createWikiService } from './features/wiki/service.ts';
import { wikiRpc } from './features/wiki/rpc.ts';

export interface CoreDeps {
  db: Knex;
  serviceKeys: ServiceKeys;
  /** CODEHOST_SECRET_KEY's keyring (undefined: the development key). */
  codehostSecretKeys?: readonly string[];
}

/**
 * The core's composition of features: stores over the pool, a service per feature
 * over the stores, each service's Connect implementation on the router, and the trust
 * its server checks every call against. (Pools, the relay and the server are made in start.ts.)
 */
export function buildCore(deps: CoreDeps): { routes: (router: ConnectRouter) => void; trust: CallerTrust } {
  const stores = createStores(deps.db);
  const grants = createOAuthGrants({
    oauth: createOAuthStore(deps.db),
    apiKeys: stores.apiKeys,
    permissionsOf: (key) => effectivePermissions(key.role, key.permissions),
  });
  const auth = createAuthService(stores, undefined, grants);
  // Every call proves its caller; the actor of a key is checked against the key's current state.
  const trust: CallerTrust = {
    verify: createTokenVerifier(deps.serviceKeys),
    policyOf: corePolicy,
    currentActor: (claims) => auth.currentActor(claims),
  };
  const codehostBox = withOpenCache(codehostSecretBox(deps.codehostSecretKeys));
  return { routes: (router: ConnectRouter) => coreRoutes(router, stores, auth, codehostBox, grants), trust };
}

function coreRoutes(
  router: ConnectRouter,
  stores: Stores,
  auth: ReturnType<typeof createAuthService>,
  codehostBox: SecretBox,
  grants: OAuthGrants,
): void {
  router.service(AuthService, authRpc(auth));
  router.service(OAuthService, oauthRpc(grants));
  router.service(ProjectService, projectRpc(createProjectService(stores)));
  router.service(EntryService, entryRpc(createEntryService(stores)));
  router.service(CommentService, commentRpc(createCommentService(stores)));
  router.service(AttachmentService, attachmentRpc(createAttachmentService(stores)));
  router.service(ReleaseService, releaseRpc(createReleaseService(stores)));
  router.service(ReleaseEvidenceService, releaseEvidenceRpc(createReleaseEvidenceService(stores)));
  router.service(SessionService, sessionRpc(createSessionRules(stores)));
  router.service(IntegrationLinkService, integrationLinkRpc(createIntegrationLinkService(stores)));
  router.service(TimeEntryService, timeEntryRpc(createTimeEntryService(stores)));
  router.service(UserService, userRpc(createUserService(stores), createInviteService(stores)));
  router.service(MemberService, memberRpc(createMemberService(stores)));
  router.service(WikiService, wikiRpc(createWikiService(stores)));
  router.service(AgreementService, agreementRpc(createAgreementService(stores)));
  router.service(SnapshotService, snapshotRpc(createSnapshotService(stores)));
  router.service(AuditService, auditEventRpc(createAuditEventService(stores)));
  router.service(SearchService, searchRpc(createSearchService(stores)));
  router.service(CodeHostService, codeHostRpc(createCodeHostService(stores, codehostBox)));
}
