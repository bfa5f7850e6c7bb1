import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { EVENT_NAMES, INTERNAL_EVENT_NAMES } from './events.ts';
import {
  ChangedFields,
  Id,
  Payload,
  Text,
  When,
  bulkUsers,
  codeBase,
  costPayload,
  entryBase,
  linkBase,
  memberBase,
  projectBase,
  release,
  subscriptionBase,
  timeBase,
  userBase,
  wikiBase,
} from './event-payloads.ts';
import { Nullable, StringEnum } from './resources/common.ts';

export { NAMED_PAYLOAD_BASES } from './event-payloads.ts';

// The one source of truth of the event vocabulary's documentation: GET /webhooks/event-types
// serves it, and `npm run event-docs` writes docs/events.md and the per-event messages of
// docs/asyncapi.yaml from it (test/event-docs.test.ts checks both are current). A name of
// EVENT_NAMES without a definition here is listed as reserved (not emitted); a service can
// only emit a name defined here (ActorEvent's eventName is an EmittedEventName).

/** A section of the catalogue (the spec's vocabulary groups), with the prose docs/events.md shows before its table. */
export interface EventGroup {
  id: string;
  title: string;
  /** Markdown shown under the section's heading. */
  intro: string;
}

/** What the source says about one emitted event. */
export interface EventDefinition {
  group: string;
  entityType: string;
  /** When it is emitted (one sentence or two). */
  description: string;
  /** Further rules: order, once-only, what it leaves out. */
  notes?: string;
  payload: TObject;
}

/** The vocabulary's groups, in the spec's order, and the internal group. */
export const EVENT_GROUPS: readonly EventGroup[] = [
  {
    id: 'entry',
    title: 'Entries and comments',
    intro:
      "Source: `features/entries/service.ts` and `features/comments/service.ts`. Envelope `projectId`: the entry's project. Fields every entry event carries (**entry base**): `entryId`, `projectId`, `title`, `type`, `status` (the current status). Deleting an entry writes an audit record only (there is no `entry.deleted`); attachments emit no events.",
  },
  {
    id: 'release',
    title: 'Releases',
    intro:
      "Source: `features/releases/service.ts`. Envelope `projectId`: the release's project. Deleting a release emits nothing; its entries' `releaseId` becomes null, also without an event.",
  },
  {
    id: 'cost',
    title: 'Cost',
    intro: 'Source: `features/entries/events.ts`. `cost.approved` and `cost.rejected` are events of the entry.',
  },
  { id: 'invoice', title: 'Invoices', intro: '' },
  {
    id: 'agreement',
    title: 'Agreements',
    intro: 'Source: `features/agreements/admin.ts`. Creating an agreement (CLI) emits nothing.',
  },
  {
    id: 'code',
    title: 'Code and CI',
    intro:
      'Source: `features/codehost/` of the core, fed by GitHub webhooks to `POST /hooks/github/:organizationId` (docs/codehost.md). A repository belongs to the project an integration link (provider `github`, externalType `repository`, externalId `owner/name`) aligns it with; a commit message or a pull request\'s title or body that says `E-<entryNumber>` references that entry of the project. Each event is an event of the entry (envelope `entityType` `entry`, `entityId` the entry id, `projectId` its project), once per referenced entry; `actorUserId` is null. Fields every code event carries (**code base**): `entryId`, `projectId`, `entryNumber`, `provider`, `repository`. A deployment status that moves an entry\'s `deploymentStage` emits `entry.updated` (`changedFields` `["deploymentStage"]`).',
  },
  { id: 'tenant', title: 'Tenant and billing', intro: '' },
  { id: 'status', title: 'Status and changelog', intro: '' },
  {
    id: 'keys',
    title: 'API keys and webhooks',
    intro:
      'Sources: `admin/operations.ts` of the core (there is no API route for keys: only the admin CLI and `admin demo` write `api_key.*`), and `features/subscriptions/service.ts` and `features/test-calls/service.ts` of the delivery service.',
  },
  {
    id: 'time',
    title: 'Time entries',
    intro:
      "Source: `features/time-entries/` (`crud.ts`, `transitions.ts` and `sync.ts` emit; `events.ts` and `presenter.ts`' `timeEventPayload` build). Envelope `projectId`: the entry's project. Fields every `time.*` event carries (**time base**): `timeEntryId`, `organizationId`, `projectId`, `userId`, `entryId`, `workDate`, `hours`, `minutes`, `status`. The `*UserId` fields are the key's creating user, the same as `actorUserId`.",
  },
  { id: 'report', title: 'Reports', intro: '' },
  {
    id: 'people',
    title: 'Wiki pages, users, members, integration links',
    intro:
      'Sources: `features/users/`, `features/members/service.ts`, `features/wiki/service.ts`, `features/integration-links/service.ts` and `admin/operations.ts`. Fields of the user events (**user base**): `userId`, `organizationId`, `email`, `name`, `role`, and `actorId` (the same as `actorUserId`); their envelope `projectId` is null.',
  },
  { id: 'assistant', title: 'Assistant', intro: '' },
  {
    id: 'internal',
    title: 'Projects (internal only)',
    intro:
      'Source: `features/projects/service.ts`. These names are published on Kafka for internal consumers (`INTERNAL_EVENT_NAMES`); they are not in the webhook vocabulary, so a subscription cannot list them, and the API catalogue does not list them.',
  },
];

/** Which group a vocabulary name belongs to, by its first segment (the spec's grouping). */
const GROUP_OF_PREFIX: Record<string, string> = {
  entry: 'entry',
  release: 'release',
  cost: 'cost',
  invoice: 'invoice',
  agreement: 'agreement',
  pr: 'code',
  codehost: 'code',
  commit: 'code',
  ci: 'code',
  reviewer: 'code',
  tenant: 'tenant',
  subscription: 'tenant',
  usage: 'tenant',
  trial: 'tenant',
  dunning: 'tenant',
  analytics: 'tenant',
  status: 'status',
  changelog: 'status',
  api_key: 'keys',
  api: 'keys',
  webhook: 'keys',
  time: 'time',
  report: 'report',
  wiki_page: 'people',
  user: 'people',
  project_member: 'people',
  integration_link: 'people',
  assistant: 'assistant',
  project: 'internal',
};
/** Names whose first segment misleads (release.notes.generated belongs to code and CI). */
const GROUP_OF_NAME: Record<string, string> = {
  'release.notes.generated': 'code',
  'project.status.update.generated': 'code',
};

/** The group of an event name: by name, then by its first segment; `other` when neither knows it. */
export function eventGroupOf(name: string): string {
  return GROUP_OF_NAME[name] ?? GROUP_OF_PREFIX[name.split('.')[0]] ?? 'other';
}

const entry = (description: string, payload: TObject, notes?: string): EventDefinition => ({
  group: 'entry',
  entityType: 'entry',
  description,
  payload,
  ...(notes ? { notes } : {}),
});
const time = (description: string, extra: TProperties, notes?: string): EventDefinition => ({
  group: 'time',
  entityType: 'time_entry',
  description,
  payload: Payload({ ...timeBase, ...extra }),
  ...(notes ? { notes } : {}),
});

/**
 * Every event a service emits, with its payload schema. Adding a name here is what lets a
 * service emit it (EmittedEventName); its documentation and AsyncAPI message follow from it.
 */
export const EMITTED_EVENTS = {
  'entry.created': entry(
    '`POST /projects/:id/entries`.',
    Payload(entryBase),
    'A create with `costApprovalStatus: approved` is not a move and emits no cost event.',
  ),
  'entry.assigned': entry(
    'On create when the body sets `assignedToId`, and on update when `assignedToId` changes (setting it to null counts).',
    Payload({ ...entryBase, assignedToId: Nullable(Id), previousAssignedToId: Nullable(Id) }),
    'Follows `entry.created`, or `entry.updated` and `entry.status_changed`. `previousAssignedToId` is null on create.',
  ),
  'entry.updated': entry(
    '`PATCH /entries/:id` when at least one field really changed.',
    Payload({ ...entryBase, changedFields: ChangedFields }),
    'A PATCH that changes nothing emits nothing at all. A status move also lists `statusChangedAt`, which the server sets.',
  ),
  'entry.status_changed': entry(
    '`PATCH /entries/:id` that changes `status` (any status may move to any other).',
    Payload({ ...entryBase, previousStatus: Text, newStatus: Text }),
    '`status` = `newStatus`. Setting the same status emits nothing; the status set on create emits nothing.',
  ),
  'entry.commented': entry(
    '`POST /entries/:id/comments`.',
    Payload({ ...entryBase, commentId: Id, authorId: Nullable(Id), body: Text, isInternal: Nullable(Text) }),
    "`entityId` is the **entry** id, not the comment id, so the event stays ordered with the entry's other events. Comment edits and deletes emit nothing.",
  ),
  'cost.approved': {
    ...entry('`PATCH /entries/:id` where `costApprovalStatus` moves to `approved`.', costPayload('approved')),
    group: 'cost',
    notes: "Emitted last in the update's events.",
  },
  'cost.rejected': {
    ...entry('`PATCH /entries/:id` where `costApprovalStatus` moves to `rejected`.', costPayload('rejected')),
    group: 'cost',
    notes: "Emitted last in the update's events.",
  },
  'release.created': {
    group: 'release',
    entityType: 'release',
    description: '`POST /projects/:id/releases`.',
    payload: Payload({ ...release, startDate: When, endDate: When }),
  },
  'release.status_changed': {
    group: 'release',
    entityType: 'release',
    description: '`PATCH /releases/:id` that changes `status` (any to any).',
    payload: Payload({ releaseId: Id, projectId: Id, name: Text, status: release.status, previousStatus: Text, newStatus: Text }),
    notes: 'Fires on every status change, including a move into `released`. Other field changes emit nothing (audit only).',
  },
  'release.released': {
    group: 'release',
    entityType: 'release',
    description: 'The first time the release is `released`, by `PATCH /releases/:id` or by a create with that status.',
    payload: Payload({
      releaseId: Id,
      projectId: Id,
      name: Text,
      status: Type.Literal('released'),
      version: Nullable(Text),
      releasedAt: When,
    }),
    notes:
      '**Fires once per release, ever.** Leaving `released` and coming back emits only `release.status_changed`. `releasedAt` is set to now unless it was already set or given. Follows `release.created` or `release.status_changed`.',
  },
  'agreement.signed': {
    group: 'agreement',
    entityType: 'agreement',
    description:
      'An agreement enters `signed`; today only through the CLI `admin agreement sign` (it stands in for the e-sign callback).',
    payload: Payload({ agreementId: Id, projectId: Id, clientId: Text, status: Type.Literal('signed') }),
    notes: '`actorUserId` is null. **Fires once:** signing an already signed agreement emits nothing.',
  },
  'api_key.created': {
    group: 'keys',
    entityType: 'api_key',
    description: '`admin key create` (also `admin demo`, which mints a fresh key on every run).',
    payload: Payload({
      apiKeyId: Id,
      organizationId: Id,
      prefix: Text,
      scope: StringEnum(['organization', 'project']),
      scopedProjectId: Nullable(Id),
      createdByUserId: Id,
    }),
    notes: "`actorUserId` = the key's owner. Envelope `projectId` = `scopedProjectId`. The key itself is never in the event.",
  },
  'api_key.revoked': {
    group: 'keys',
    entityType: 'api_key',
    description: '`admin key revoke`.',
    payload: Payload({ apiKeyId: Id, organizationId: Id, prefix: Text }),
    notes: '`actorUserId` null. Fires once: revoking a revoked key emits nothing.',
  },
  'webhook.subscription.created': {
    group: 'keys',
    entityType: 'webhook_subscription',
    description: '`POST /webhooks`.',
    payload: Payload(subscriptionBase),
    notes: "Published by the delivery service's outbox; the secret is never in it.",
  },
  'webhook.subscription.deleted': {
    group: 'keys',
    entityType: 'webhook_subscription',
    description: '`DELETE /webhooks/:id`.',
    payload: Payload(subscriptionBase),
    notes: 'The subscription as it was before deletion.',
  },
  'webhook.subscription.failing': {
    group: 'keys',
    entityType: 'webhook_subscription',
    description:
      'Every attempt of the subscription has failed for WEBHOOK_FAILING_AFTER_FAILURES attempts in a row (default 10): its endpoint needs attention before the service disables it.',
    payload: Payload({ ...subscriptionBase, consecutiveFailures: Type.Integer({ minimum: 1 }), failingSince: When }),
    notes:
      "Once per run of failures (a success ends the run); sent by the delivery service within WEBHOOK_HEALTH_SWEEP_MS of the threshold, `actorUserId` null. Not in the spec's vocabulary: an extension of this service.",
  },
  'webhook.subscription.disabled': {
    group: 'keys',
    entityType: 'webhook_subscription',
    description:
      'The service disabled the subscription: its endpoint answered `410 Gone` (`disabledReason` `gone`), or every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS (default 120; `failing`).',
    payload: Payload({
      ...subscriptionBase,
      disabledReason: StringEnum(['gone', 'failing']),
      consecutiveFailures: Type.Integer({ minimum: 0 }),
      failingSince: Nullable(When),
    }),
    notes:
      '`enabled` is false; its retries stop. Audited as the system\'s (`metadata.actorType` `system`), `actorUserId` null. `PATCH /webhooks/:id {"enabled": true}` re-enables it and clears the failure state. A subscription can list this event to hear about its own disabling only if another, healthy subscription lists it too: deliveries to a disabled one stop. Not in the spec\'s vocabulary: an extension of this service.',
  },
  'webhook.test': {
    group: 'keys',
    entityType: 'webhook_subscription',
    description: '`POST /webhooks/:id/test` without an `eventName`: a synthetic signed delivery to that one subscription.',
    payload: Payload({ test: Type.Literal(true), subscriptionId: Id }),
    notes:
      'Never on Kafka: the delivery service sends it directly. A test call with `{eventName}` sends that event\'s own example instead (docs/webhooks.md, "Test deliveries").',
  },
  'time.logged': time(
    'Create (`POST /projects/:id/time-entries`) or sync create (`POST /time-entries/sync`).',
    {},
    '`status: "draft"`. Never on an idempotent replay (an `externalRef` already linked, a repeated sync).',
  ),
  'time.updated': time(
    '`PATCH /time-entries/:id` on a draft or rejected entry, only when a field really changed.',
    { changedFields: ChangedFields },
    '`changedFields` from `workDate`, `hours`, `minutes`, `description`, `billable`, `releaseId` (a duration change lists `hours` and `minutes`). The payload has no `releaseId` or `description`.',
  ),
  'time.submitted': time(
    '`POST /time-entries/:id/submit` (draft or rejected to submitted).',
    {},
    'A resubmission after a rejection emits a fresh one.',
  ),
  'time.approved': time(
    '`POST /time-entries/:id/approve` (submitted to locked); role manager or admin.',
    { approverUserId: Id },
    '`status: "locked"`. The approval `note` goes to the audit trail, not into the event.',
  ),
  'time.rejected': time('`POST /time-entries/:id/reject` (submitted to rejected); role manager or admin.', {
    rejecterUserId: Id,
    reason: Type.String({ minLength: 1 }),
  }),
  'time.unlocked': time(
    '`POST /time-entries/:id/unlock` (locked to draft); role manager or admin.',
    { unlockedByUserId: Id, reason: Type.String({ minLength: 1 }), newStatus: Type.Literal('draft') },
    '`status: "locked"` (the status that was lifted). A new `time.submitted` and `time.approved` follow a correction.',
  ),
  'wiki_page.created': {
    group: 'people',
    entityType: 'wiki_page',
    description: '`POST /projects/:id/wiki-pages` that creates a page.',
    payload: Payload(wikiBase),
    notes: 'An `externalRef` replay returns the existing page and emits nothing.',
  },
  'wiki_page.updated': {
    group: 'people',
    entityType: 'wiki_page',
    description: '`PATCH /wiki-pages/:id` when `title` or `content` really changed.',
    payload: Payload({ ...wikiBase, changedFields: ChangedFields }),
    notes: 'The payload never carries `content`.',
  },
  'wiki_page.deleted': {
    group: 'people',
    entityType: 'wiki_page',
    description: '`DELETE /wiki-pages/:id`.',
    payload: Payload(wikiBase),
  },
  'user.invited': {
    group: 'people',
    entityType: 'user',
    description: '`POST /users/invite` when it **creates** a user (status `invited`).',
    payload: Payload(userBase),
    notes: 'Not for `existing`, a replay of an `externalRef`, bulk items, or the CLI `user create`.',
  },
  'user.linked': {
    group: 'people',
    entityType: 'user',
    description: '`POST /users/invite` with an `externalRef` whose e-mail matched an existing user, which gets linked now.',
    payload: Payload({ ...userBase, integrationLinkId: Id, provider: Text, externalType: Text, externalId: Text }),
    notes: 'A replay (the ref was already linked) emits nothing.',
  },
  'user.updated': {
    group: 'people',
    entityType: 'user',
    description:
      '`PATCH /users/:id` when `name` or `metadata` really changed; and the CLI `admin user role` when the role changed.',
    payload: Payload({ ...userBase, changedFields: ChangedFields }),
    notes: 'From the CLI, `changedFields` is `["role"]` and `actorUserId` and `actorId` are null.',
  },
  'user.bulk_invited': {
    group: 'people',
    entityType: 'organization',
    description: '`POST /users/bulk-invite` when at least one item succeeded.',
    payload: Payload({
      organizationId: Id,
      actorId: Nullable(Id),
      successCount: Type.Integer(),
      failureCount: Type.Integer(),
      users: bulkUsers,
    }),
    notes: 'One event per request; `entityId` = the organization id. Bulk items emit no `user.invited` or `user.linked`.',
  },
  'project_member.added': {
    group: 'people',
    entityType: 'project_member',
    description: "`POST /projects/:id/members`, and each of an invite's `projectIds`.",
    payload: Payload(memberBase),
    notes: '`entityId` = the member id. Members added by the admin CLI (demo seeding) emit no event.',
  },
  'project_member.updated': {
    group: 'people',
    entityType: 'project_member',
    description: '`PATCH /projects/:id/members/:memberId` when `roleOverride` or `metadata` really changed.',
    payload: Payload({ ...memberBase, changedFields: ChangedFields }),
  },
  'project_member.removed': {
    group: 'people',
    entityType: 'project_member',
    description: '`DELETE /projects/:id/members/:memberId`.',
    payload: Payload(memberBase),
    notes: 'The values before deletion.',
  },
  'integration_link.created': {
    group: 'people',
    entityType: 'integration_link',
    description:
      '`POST /integration-links` that creates a link (201), and every `externalRef` upsert that creates its link (time entry create or sync, wiki page create, invite).',
    payload: Payload(linkBase),
    notes:
      "An upsert that matches an existing link (200) emits nothing. Envelope `projectId`: the target's project, or null for links to users.",
  },
  'integration_link.updated': {
    group: 'people',
    entityType: 'integration_link',
    description: '`PATCH /integration-links/:id` when `alignEntityType` or `alignEntityId` changed.',
    payload: Payload({ ...linkBase, changedFields: ChangedFields }),
    notes: 'Deleting a link emits nothing.',
  },
  'commit.linked': {
    group: 'code',
    entityType: 'entry',
    description:
      'A `push` whose commit message, or a `pull_request` whose title or body, references the entry (`E-<entryNumber>`) for the first time.',
    payload: Payload({
      ...codeBase,
      source: StringEnum(['commit', 'pull_request'], { description: 'what referenced the entry' }),
      sha: Nullable(Type.String({ description: 'the commit (source commit); null for a pull request' })),
      pullRequestNumber: Nullable(Type.Integer({ minimum: 1, description: 'source pull_request; null for a commit' })),
      title: Type.String({ description: "the commit message's first line, or the pull request's title" }),
      url: Nullable(Text),
    }),
    notes:
      'Once per commit (or pull request) and entry: a redelivery, the same commit pushed to another branch, or an edit that keeps the reference emits nothing. Links are never removed (there is no `commit.unlinked` yet).',
  },
  'pr.merged': {
    group: 'code',
    entityType: 'entry',
    description: 'A `pull_request` `closed` with `merged: true`, for each entry the pull request references.',
    payload: Payload({
      ...codeBase,
      pullRequestNumber: Type.Integer({ minimum: 1 }),
      title: Text,
      url: Nullable(Text),
      mergedAt: When,
      mergeCommitSha: Nullable(Text),
    }),
    notes:
      'Once per merge: a redelivery emits nothing; a pull request reopened and merged again emits it again. Follows `commit.linked` when the same delivery made the link.',
  },
  'pr.reopened': {
    group: 'code',
    entityType: 'entry',
    description: 'A `pull_request` `reopened`, for each entry the pull request references.',
    payload: Payload({ ...codeBase, pullRequestNumber: Type.Integer({ minimum: 1 }), title: Text, url: Nullable(Text) }),
  },
  'ci.run.attributed': {
    group: 'code',
    entityType: 'entry',
    description:
      'A `check_run` or `workflow_run` completes on a commit linked to the entry (a referencing commit, or the head or merge commit of a referencing pull request).',
    payload: Payload({
      ...codeBase,
      kind: StringEnum(['check_run', 'workflow_run']),
      runId: Type.String({ description: "the code host's id of the run" }),
      name: Text,
      headSha: Text,
      conclusion: Nullable(
        Type.String({ description: 'success, failure, neutral, cancelled, skipped, timed_out, action_required, ...' }),
      ),
      url: Nullable(Text),
      completedAt: Nullable(When),
    }),
    notes:
      'Once per run, conclusion and entry: a redelivery emits nothing; a re-run that concludes differently emits again. A run that completes before its commit is linked is recorded and appears in the evidence, without an event.',
  },
  'project.created': {
    group: 'internal',
    entityType: 'project',
    description: '`POST /projects`.',
    payload: Payload(projectBase),
    notes: 'Projects created by `admin demo` emit nothing.',
  },
  'project.updated': {
    group: 'internal',
    entityType: 'project',
    description: '`PATCH /projects/:id` when a field really changed.',
    payload: Payload({ ...projectBase, changedFields: ChangedFields }),
  },
  'project.deleted': {
    group: 'internal',
    entityType: 'project',
    description: '`DELETE /projects/:id`.',
    payload: Payload(projectBase),
    notes: 'The entries, releases and other records removed with the project emit no events of their own.',
  },
} satisfies Record<string, EventDefinition>;

/** A name a service may emit: one with a definition (and so a payload schema) in the catalogue. */
export type EmittedEventName = keyof typeof EMITTED_EVENTS;

/** The payload schema of a name nothing emits yet: any object with `occurredAt`. */
const ReservedPayload = Type.Object(
  { occurredAt: Type.String({ format: 'date-time' }) },
  { description: 'not fixed yet: nothing emits this event' },
);

/** One entry of the catalogue, as GET /webhooks/event-types answers it. */
export const EventType = Type.Object(
  {
    name: Type.String(),
    group: Type.String({ description: 'the section of the vocabulary' }),
    description: Type.String(),
    notes: Type.Optional(Type.String()),
    entityType: Type.String({ description: 'the envelope entityType; for a name not emitted yet, its first segment' }),
    emitted: Type.Boolean({ description: 'whether anything in the cluster emits it today' }),
    payloadSchema: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      description: 'JSON Schema (draft 2020-12) of the envelope payload',
    }),
  },
  { additionalProperties: false },
);
export type EventType = Static<typeof EventType>;

/** GET /webhooks/event-types query: `emitted` filters (the answer is small and fixed, so not paged). */
export const EventTypeQuery = Type.Object(
  {
    emitted: Type.Optional(
      Type.Boolean({ description: 'only the names emitted today (true), or only the reserved ones (false)' }),
    ),
  },
  { additionalProperties: false },
);

/** GET /webhooks/event-types: the whole vocabulary, in the spec's order. */
export const EventTypeList = Type.Object({ data: Type.Array(EventType), total: Type.Integer() });

const emitted: Record<string, EventDefinition> = EMITTED_EVENTS;

/** A plain JSON Schema of a TypeBox schema (no symbols). */
function plain(schema: TObject): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** A catalogue entry: an EventType, and whether it is internal (published on Kafka only; a subscription cannot list it). */
export type CatalogueEntry = EventType & { internal: boolean };

function eventTypeOf(name: string, internal: boolean): CatalogueEntry {
  const def = emitted[name];
  if (!def)
    return {
      name,
      group: eventGroupOf(name),
      description: 'Reserved in the vocabulary: a subscription may list it, but nothing emits it yet.',
      entityType: name.split('.')[0],
      emitted: false,
      internal,
      payloadSchema: plain(ReservedPayload),
    };
  return {
    name,
    group: def.group,
    description: def.description,
    ...(def.notes ? { notes: def.notes } : {}),
    entityType: def.entityType,
    emitted: true,
    internal,
    payloadSchema: plain(def.payload),
  };
}

/**
 * The catalogue: every name of the vocabulary (EVENT_NAMES, in the spec's order), then the
 * internal names. A name added to EVENT_NAMES appears at once, as reserved until defined.
 */
export const EVENT_CATALOGUE: readonly CatalogueEntry[] = [
  ...EVENT_NAMES.map((n) => eventTypeOf(n, false)),
  ...INTERNAL_EVENT_NAMES.map((n) => eventTypeOf(n, true)),
];

/** The public part of the catalogue (what GET /webhooks/event-types lists). */
export const PUBLIC_EVENT_TYPES: readonly EventType[] = EVENT_CATALOGUE.filter((e) => !e.internal).map(
  ({ internal: _internal, ...e }) => e,
);

/** The catalogue entry of a name (public or internal), if any. */
export function eventTypeNamed(name: string): CatalogueEntry | undefined {
  return EVENT_CATALOGUE.find((e) => e.name === name);
}
