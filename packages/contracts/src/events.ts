/** The event vocabulary accepted in webhook eventNames (spec, "Event vocabulary"). */
export const EVENT_NAMES = [
  'entry.created',
  'entry.updated',
  'entry.status_changed',
  'entry.assigned',
  'entry.commented',
  'release.created',
  'release.status_changed',
  'release.released',
  'cost.estimate_requested',
  'cost.estimation.run.started',
  'cost.estimation.run.finished',
  'cost.estimation.run.failed',
  'cost.approved',
  'cost.rejected',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.finalized',
  'agreement.signed',
  'agreement.esign.callback.received',
  'pr.merged',
  'pr.reopened',
  'codehost.identity.connected',
  'codehost.identity.disconnected',
  'codehost.identity.policy.violated',
  'commit.linked',
  'commit.unlinked',
  'ci.run.attributed',
  'commit.entry.suggestion.generated',
  'commit.risk.generated',
  'release.notes.generated',
  'project.status.update.generated',
  'pr.description.generated',
  'commit.suggestion.surfaced',
  'commit.suggestion.accepted',
  'commit.suggestion.rejected',
  'ci.flaky.override.set',
  'ci.gate.evaluated',
  'reviewer.suggestion.generated',
  'commit.linter.advisory.posted',
  'tenant.created',
  'tenant.verified',
  'tenant.suspended',
  'subscription.created',
  'subscription.updated',
  'usage.limit.hit',
  'subscription.upgraded',
  'subscription.downgraded',
  'subscription.cancelled',
  'trial.ending_soon',
  'trial.ended',
  'dunning.email.sent',
  'analytics.tenant.opted_out',
  'analytics.tenant.opted_in',
  'status.incident.created',
  'status.incident.updated',
  'status.incident.resolved',
  'status.component.overridden',
  'changelog.entry.scheduled',
  'changelog.entry.published',
  'api_key.created',
  'api_key.revoked',
  'api_key.used',
  'api.rate_limit.hit',
  'webhook.subscription.created',
  'webhook.subscription.deleted',
  'webhook.test',
  // Beyond the spec's vocabulary (issue 15): the service tells an integrator its endpoint is failing or was disabled.
  'webhook.subscription.failing',
  'webhook.subscription.disabled',
  'time.logged',
  'time.submitted',
  'time.approved',
  'time.rejected',
  'time.unlocked',
  'time.updated',
  'time.deleted',
  'report.viewed',
  'report.exported',
  'wiki_page.created',
  'wiki_page.updated',
  'wiki_page.deleted',
  'user.invited',
  'user.linked',
  'user.updated',
  'user.bulk_invited',
  'project_member.added',
  'project_member.updated',
  'project_member.removed',
  'integration_link.created',
  'integration_link.updated',
  'assistant.conversation_started',
  'assistant.message_sent',
  'assistant.tool_proposed',
  'assistant.tool_confirmed',
  'assistant.tool_executed',
  'assistant.tool_failed',
  'assistant.guardrail_blocked',
  'assistant.action_denied',
  'assistant.external_action_proposed',
  'assistant.external_action_dry_run',
  'assistant.external_action_confirmed',
  'assistant.external_action_executed',
  'assistant.external_action_failed',
  'assistant.external_action_unknown',
  'assistant.upload_presign_requested',
  'assistant.upload_registered',
  'assistant.upload_scan_started',
  'assistant.upload_scan_passed',
  'assistant.upload_scan_failed',
  'assistant.upload_blocked',
  'assistant.upload_extraction_started',
  'assistant.upload_extracted',
  'assistant.upload_extraction_failed',
  'assistant.upload_redacted',
  'assistant.upload_used_as_context',
  'assistant.upload_deleted',
  'assistant.entry_from_uploads_proposed',
  'assistant.entry_from_uploads_created',
  'assistant.upload_attachment_proposed',
  'assistant.upload_attached_to_entry',
  'assistant.upload_attachment_failed',
  'assistant.comment_with_uploads_proposed',
  'assistant.comment_with_uploads_created',
  'assistant.attachment_lifecycle_viewed',
  'assistant.attachment_remove_proposed',
  'assistant.attachment_removed',
  'assistant.attachment_replace_proposed',
  'assistant.attachment_replaced',
  'assistant.attachment_access_refreshed',
  'assistant.attachment_lifecycle_failed',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * Events published on the domain-event topic for internal consumers only. They are
 * not in the public vocabulary, so webhook subscriptions cannot list them.
 */
export const INTERNAL_EVENT_NAMES = ['project.created', 'project.updated', 'project.deleted'] as const;

const VOCABULARY = new Set<string>(EVENT_NAMES);
export function isEventName(v: string): v is EventName {
  return VOCABULARY.has(v);
}

/**
 * A wildcard in a subscription's eventNames (docs/webhooks.md, "Wildcards"): `*` (every event of the
 * vocabulary) or `family.*` (every name that begins with `family.`, at any depth: `cost.*` covers
 * `cost.estimation.run.started`). The star stands only for whole trailing segments.
 */
const PATTERN = /^(?:\*|(?:[a-z0-9_]+\.)+\*)$/;
export function isEventNamePattern(v: string): boolean {
  return PATTERN.test(v);
}

/** The vocabulary's names that an exact name or a wildcard stands for (empty for an unknown name or a malformed pattern). */
export function eventNamesMatching(nameOrPattern: string): EventName[] {
  if (!isEventNamePattern(nameOrPattern)) return isEventName(nameOrPattern) ? [nameOrPattern] : [];
  const prefix = nameOrPattern.slice(0, -1);
  return EVENT_NAMES.filter((n) => n.startsWith(prefix));
}

/**
 * Every entry of an eventNames list that would select this event: the name itself, each of its
 * families (`a.*`, `a.b.*`, …) and `*`. The one definition of matching: the fan-out's SQL
 * (an array overlap with these) and `subscribesTo` both use it.
 */
export function selectorsOf(eventName: string): string[] {
  const parts = eventName.split('.');
  const families = parts.slice(0, -1).map((_, i) => `${parts.slice(0, i + 1).join('.')}.*`);
  return [eventName, ...families, '*'];
}

/** Whether a subscription's eventNames (exact names and wildcards) select this event name. */
export function subscribesTo(eventNames: readonly string[], eventName: string): boolean {
  return selectorsOf(eventName).some((s) => eventNames.includes(s));
}

/**
 * The value of every message on the domain-event topic, as JSON (docs/asyncapi.yaml),
 * and its one definition. There is no proto message for it: the envelope never
 * travels as protobuf, and the proto3 JSON mapping would drop `actorUserId` and
 * `projectId` when they are null, where consumers (and the subscriber's envelope)
 * get them as explicit nulls.
 */
export interface EventEnvelope {
  id: string;
  eventName: string;
  schemaVersion: 1;
  entityType: string;
  entityId: string;
  occurredAt: string;
  actorUserId: string | null;
  organizationId: string;
  projectId: string | null;
  payload: Record<string, unknown>;
}

/**
 * The body a webhook subscriber receives (spec "Envelope"): the domain event's
 * envelope without its routing fields; its `id` is the delivery id.
 */
export type WebhookEnvelope = Omit<EventEnvelope, 'organizationId' | 'projectId'>;
