import { createClient, type Client } from '@connectrpc/connect';
import { createRpcTransport, type TokenSigner } from '@cluster/platform';
import {
  AuditService,
  AuthService,
  CodeHostService,
  EvidenceService,
  IdempotencyService,
  ProjectService,
  TimeEntryService,
  WebhookService,
  AgreementService,
  MemberService,
  SearchService,
  SnapshotService,
  UserService,
  WikiService,
} from '@cluster/proto';
import { AttachmentService, CommentService, EntryService, IntegrationLinkService, ReleaseService } from '@cluster/proto';

/** Connect clients of the backends. Add a service here when its routes arrive. */
export interface Clients {
  auth: Client<typeof AuthService>;
  idempotency: Client<typeof IdempotencyService>;
  projects: Client<typeof ProjectService>;
  audit: Client<typeof AuditService>;
  timeEntries: Client<typeof TimeEntryService>;
  webhooks: Client<typeof WebhookService>;
  evidence: Client<typeof EvidenceService>;
  entries: Client<typeof EntryService>;
  comments: Client<typeof CommentService>;
  attachments: Client<typeof AttachmentService>;
  releases: Client<typeof ReleaseService>;
  integrationLinks: Client<typeof IntegrationLinkService>;
  users: Client<typeof UserService>;
  members: Client<typeof MemberService>;
  wiki: Client<typeof WikiService>;
  agreements: Client<typeof AgreementService>;
  snapshots: Client<typeof SnapshotService>;
  search: Client<typeof SearchService>;
  codehost: Client<typeof CodeHostService>;
}

/** Clients of the backends, each call carrying the gateway's token for its service (signed by `sign`). */
export function createClients(
  urls: { core: string; delivery: string; evidence: string },
  sign: TokenSigner,
  timeoutMs?: number,
): Clients {
  const core = createRpcTransport(urls.core, { sign, audience: 'core' }, timeoutMs);
  const delivery = createRpcTransport(urls.delivery, { sign, audience: 'delivery' }, timeoutMs);
  const evidence = createRpcTransport(urls.evidence, { sign, audience: 'evidence' }, timeoutMs);
  return {
    auth: createClient(AuthService, core),
    idempotency: createClient(IdempotencyService, core),
    projects: createClient(ProjectService, core),
    audit: createClient(AuditService, core),
    timeEntries: createClient(TimeEntryService, core),
    webhooks: createClient(WebhookService, delivery),
    evidence: createClient(EvidenceService, evidence),
    entries: createClient(EntryService, core),
    comments: createClient(CommentService, core),
    attachments: createClient(AttachmentService, core),
    releases: createClient(ReleaseService, core),
    integrationLinks: createClient(IntegrationLinkService, core),
    users: createClient(UserService, core),
    members: createClient(MemberService, core),
    wiki: createClient(WikiService, core),
    agreements: createClient(AgreementService, core),
    snapshots: createClient(SnapshotService, core),
    search: createClient(SearchService, core),
    codehost: createClient(CodeHostService, core),
  };
}
