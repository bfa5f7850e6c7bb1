import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import {
  SECRET_GRACE_DEFAULT_SECONDS,
  WEBHOOK_THROTTLE_LIMITS,
  checkWebhookFilter,
  eventNamesMatching,
  isEventName,
  isEventNamePattern,
  type WebhookCreateBody,
  type WebhookRotateSecretBody,
  type WebhookUpdateBody,
} from '@cluster/contracts';
import { DomainError, requireActor, validation, type Page, type PageArgs, type SecretBox } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { generateSigningKeyPair } from '@cluster/webhook-verify';
import { newSigningSecret } from '../../shared/webhook-secret-box.ts';
import { apiWrite, type AuditRecord } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { subscriptionEvent } from './events.ts';
import { presentSubscription } from './presenter.ts';
import { openReceiver, sealReceiver } from '../../sender/receiver.ts';
import { checkReceiver, mergeReceiver, receiverView } from './receiver.ts';
import { checkDestinationBody, originOf, type CheckedDestination } from './destination.ts';
import { lastingSubscriptionInScope, subscriptionInScope } from './scope.ts';
import type { SubscriptionChanges, SubscriptionRow } from './store.ts';

/** A subscription's health as it starts, and as `PATCH {"enabled": true}` leaves it. */
const HEALTHY: SubscriptionChanges = {
  disabledReason: null,
  disabledAt: null,
  consecutiveFailures: 0,
  failingSince: null,
  failingNotifiedAt: null,
};
/** What the subscription rules need besides the stores. */
export interface SubscriptionPorts {
  /** Seals signing secrets at rest. */
  secrets: SecretBox;
  /** Why a destination URL may not receive webhooks (sender/address-guard.ts `checkDestination`), or undefined. */
  checkDestination(url: string): Promise<string | undefined>;
  /** Why a broker's host may not be connected to (sender/address-guard.ts `checkHost`), or undefined. */
  checkHost?(host: string): Promise<string | undefined>;
  /** Outside CLUSTER_ENV=development: broker destinations need TLS. */
  production?: boolean;
  /** Whether the platform presents a client certificate of its own (WEBHOOK_CLIENT_CERT_FILE): `auth: {type: "mtls"}` needs it. */
  platformCertificate?: boolean;
  /** Called after a write committed its audit record (wakes the forwarder to the core). */
  audited?: () => void;
}

export { originOf };

/**
 * Unique names and wildcards, in the given order. A wildcard (`*`, `family.*`) that is malformed or
 * stands for no event of the vocabulary is a validation_error pointing at it; unknown exact names fail
 * with the spec's exact body (`unknown_event_names`).
 */
export function checkEventNames(names: unknown): string[] {
  const list = (Array.isArray(names) ? names : []).map(String);
  const problems = list.flatMap((n, i) => {
    if (!n.includes('*')) return [];
    if (!isEventNamePattern(n))
      return [{ path: `/eventNames/${i}`, message: 'a wildcard is `*` or ends in `.*` (e.g. `entry.*`)' }];
    if (!eventNamesMatching(n).length) return [{ path: `/eventNames/${i}`, message: `matches no event name` }];
    return [];
  });
  if (problems.length) throw validation(problems);
  const invalid = [...new Set(list.filter((n) => !n.includes('*') && !isEventName(n)))];
  if (invalid.length) throw new DomainError('unknown_event_names', `unknown event names: ${invalid.join(', ')}`, { invalid });
  return [...new Set(list)];
}

/**
 * The filter of a body as stored: null for none (`null` or `{}`: what clears it on update), else the filter,
 * checked (webhook-filter.ts of @cluster/contracts): a 400 validation_error names each bad part by its pointer.
 */
export function checkFilter(filter: unknown): Record<string, unknown> | null {
  if (filter === null || filter === undefined) return null;
  const problems = checkWebhookFilter(filter);
  if (problems.length) throw validation(problems);
  const value = filter as Record<string, unknown>;
  return Object.keys(value).length ? value : null;
}

/**
 * A new signing credential for a scheme: what is sealed (the `whsec_` secret or the `whsk_` private key),
 * the public key stored beside it (ed25519), and what the answer shows once (hmac-sha256: the secret;
 * ed25519: nothing beyond the subscription, whose `publicKey` is the new one).
 */
function newCredential(scheme: string): { sealable: string; publicKey: string | null; shown: JsonObject } {
  if (scheme === 'ed25519') {
    const pair = generateSigningKeyPair();
    return { sealable: pair.privateKey, publicKey: pair.publicKey, shown: {} };
  }
  const secret = newSigningSecret();
  return { sealable: secret, publicKey: null, shown: { hmacSecret: secret } };
}

/**
 * A body's `rateLimit` and `maxInFlight` (docs/webhooks.md, "Throttling"), only those it names: an integer
 * within WEBHOOK_THROTTLE_LIMITS, or null (no limit). The gateway's schema says the same; this holds for any caller.
 */
export function checkThrottle(body: { rateLimit?: unknown; maxInFlight?: unknown }): {
  rateLimit?: number | null;
  maxInFlight?: number | null;
} {
  const out: { rateLimit?: number | null; maxInFlight?: number | null } = {};
  const problems: { path: string; message: string }[] = [];
  for (const name of ['rateLimit', 'maxInFlight'] as const) {
    if (!(name in body) || body[name] === undefined) continue;
    const value = body[name];
    const { min, max } = WEBHOOK_THROTTLE_LIMITS[name];
    if (value === null) out[name] = null;
    else if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      problems.push({ path: `/${name}`, message: `must be an integer from ${min} to ${max}, or null` });
    else out[name] = value;
  }
  if (problems.length) throw validation(problems);
  return out;
}

const audit = (action: string, entityId: string, metadata?: Record<string, unknown>): AuditRecord => ({
  entityType: 'webhook_subscription',
  action,
  entityId,
  metadata,
});

/** Subscriptions of an organization: create, list, get, update, delete, rotate the secret. Rules only; SQL is in the store. */
export function createSubscriptionService(stores: Stores, ports: SubscriptionPorts) {
  /** Runs a write's transaction, then wakes the audit forwarder. */
  const write = async <T>(work: (tx: Stores) => Promise<T>): Promise<T> => {
    const result = await stores.transaction(work);
    ports.audited?.();
    return result;
  };

  async function checkUrl(url: string): Promise<void> {
    const problem = await ports.checkDestination(url);
    if (problem) throw validation([{ path: '/destinationUrl', message: problem }]);
  }

  /**
   * Where a body sends deliveries: `destinationUrl` (HTTP) or `destination` (any type: docs/webhooks.md,
   * "Destinations"), checked; undefined when it names neither (an update that keeps it).
   */
  async function destinationOf(body: WebhookCreateBody | WebhookUpdateBody): Promise<CheckedDestination | undefined> {
    const hasUrl = 'destinationUrl' in body && body.destinationUrl !== undefined;
    const hasDestination = 'destination' in body && body.destination !== undefined;
    if (hasUrl && hasDestination)
      throw validation([{ path: '/destination', message: 'give destinationUrl or destination, not both' }]);
    if (hasUrl) {
      const url = String(body.destinationUrl);
      await checkUrl(url);
      return { destinationUrl: url, destinationOrigin: originOf(url), destination: null };
    }
    if (!hasDestination) return undefined;
    return checkDestinationBody(body.destination, {
      checkUrl: ports.checkDestination,
      checkHost: ports.checkHost ?? (async () => undefined),
      production: ports.production ?? false,
    });
  }

  /** Custom headers and receiver auth of a body, checked (docs/webhooks.md); only the parts it names. */
  const receiverOf = (body: WebhookCreateBody | WebhookUpdateBody) =>
    checkReceiver(body, { checkUrl: ports.checkDestination, platformCertificate: ports.platformCertificate ?? false });

  /**
   * The sealed settings and their masked view after `given` replaced parts of what `row` holds (none for a
   * new subscription). Stored settings that no key opens any more can only be replaced whole.
   */
  function sealedReceiver(
    id: string,
    row: SubscriptionRow | undefined,
    given: Awaited<ReturnType<typeof receiverOf>>,
    destinationUrl: string,
  ) {
    let stored = { headers: {}, auth: null } as ReturnType<typeof openReceiver>;
    if (row?.receiverSealed && (given.headers === undefined || given.auth === undefined || given.destination === undefined)) {
      try {
        stored = openReceiver(ports.secrets, id, row.receiverSealed);
      } catch {
        throw validation([
          {
            path: '',
            message:
              'the stored headers, auth and destination can no longer be opened (sealing key retired): send headers, auth and destination',
          },
        ]);
      }
    }
    const settings = mergeReceiver(stored, given);
    return {
      receiverSealed: sealReceiver(ports.secrets, id, settings),
      receiverView: receiverView(settings, destinationUrl) as SubscriptionRow['receiverView'],
    };
  }

  return {
    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: PageArgs): Promise<Page<JsonObject>> {
      const actor = requireActor(actorIn);
      const enabled = typeof filters.enabled === 'boolean' ? filters.enabled : undefined;
      const temporary = filters.temporary === true;
      const rows = await stores.subscriptions.list(actor.organizationId, { enabled, temporary }, page);
      return { ...rows, data: rows.data.map(presentSubscription) };
    },

    async get(actorIn: Actor | undefined, id: string): Promise<JsonObject> {
      return presentSubscription(await subscriptionInScope(stores.subscriptions, requireActor(actorIn), id));
    },

    /**
     * Creates a subscription. hmac-sha256 (default): the answer carries `hmacSecret`, the only time besides
     * rotation. ed25519: the answer (like every later one) carries the `publicKey`; the private key never leaves.
     */
    async create(actorIn: Actor | undefined, body: WebhookCreateBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const eventNames = checkEventNames(body.eventNames);
      const filter = checkFilter(body.filter);
      const target = await destinationOf(body);
      if (!target) throw validation([{ path: '/destinationUrl', message: 'is required (or give destination)' }]);
      const { destinationUrl, destinationOrigin } = target;
      const receiver = { ...(await receiverOf(body)), destination: target.destination };
      const throttle = checkThrottle(body);
      const id = randomUUID();
      const sealed = sealedReceiver(id, undefined, receiver, destinationUrl);
      const signatureScheme = body.signatureScheme ?? 'hmac-sha256';
      const credential = newCredential(signatureScheme);
      return write(async (tx) => {
        const row = await tx.subscriptions.insert({
          id,
          organizationId: actor.organizationId,
          destinationUrl,
          destinationOrigin,
          eventNames,
          enabled: body.enabled === undefined ? true : Boolean(body.enabled),
          description: body.description ?? null,
          ordering: body.ordering ?? 'none',
          filter,
          signatureScheme,
          publicKey: credential.publicKey,
          secretSealed: ports.secrets.seal(credential.sealable, id),
          ...sealed,
          rateLimit: throttle.rateLimit ?? null,
          maxInFlight: throttle.maxInFlight ?? null,
          createdByUserId: actor.userId || null,
        });
        if (row.rateLimit !== null || row.maxInFlight !== null) await tx.subscriptions.syncThrottle(id, true);
        await tx.record(
          apiWrite(
            actor,
            audit('created', id, {
              destinationUrl,
              destinationType: target.destination?.type ?? 'http',
              eventNames,
              signatureScheme,
            }),
            [subscriptionEvent('webhook.subscription.created', row)],
          ),
        );
        return { ...presentSubscription(row), ...credential.shown };
      });
    },

    /** Changes only supplied fields. Disabling stops the subscription's scheduled retries; enabling clears its failure state. */
    async update(actorIn: Actor | undefined, id: string, body: WebhookUpdateBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const values: SubscriptionChanges = {};
      if ('eventNames' in body) values.eventNames = checkEventNames(body.eventNames);
      const target = await destinationOf(body);
      if (target) {
        values.destinationUrl = target.destinationUrl;
        values.destinationOrigin = target.destinationOrigin;
      }
      if ('description' in body) values.description = body.description ?? null;
      if ('enabled' in body) values.enabled = Boolean(body.enabled);
      if (body.ordering !== undefined) values.ordering = body.ordering;
      Object.assign(values, checkThrottle(body));
      if ('filter' in body) values.filter = checkFilter(body.filter);
      const receiver = { ...(await receiverOf(body)), ...(target ? { destination: target.destination } : {}) };
      return write(async (tx) => {
        const before = await lastingSubscriptionInScope(tx.subscriptions, actor, id, { lock: true });
        if ('headers' in body || 'auth' in body || target)
          Object.assign(values, sealedReceiver(id, before, receiver, values.destinationUrl ?? before.destinationUrl));
        // Enabling starts afresh: the service's reason to disable and the run of failures are cleared.
        if (values.enabled) Object.assign(values, HEALTHY);
        const row = Object.keys(values).length ? await tx.subscriptions.update(id, values) : before;
        const throttled = (row: SubscriptionRow) => row.rateLimit !== null || row.maxInFlight !== null;
        if (throttled(row) !== throttled(before)) await tx.subscriptions.syncThrottle(id, throttled(row));
        if (before.enabled && !row.enabled) await tx.deliveryQueue.stopPending(id, 'retries stopped: subscription disabled');
        await tx.record(apiWrite(actor, audit('updated', id, { fields: Object.keys(body) })));
        return presentSubscription(row);
      });
    },

    /** Deletes (soft: records stay for the audit trail) and stops pending retries. */
    async remove(actorIn: Actor | undefined, id: string): Promise<void> {
      const actor = requireActor(actorIn);
      await write(async (tx) => {
        const row = await lastingSubscriptionInScope(tx.subscriptions, actor, id, { lock: true });
        await tx.subscriptions.softDelete(id);
        await tx.deliveryQueue.stopPending(id, 'retries stopped: subscription deleted');
        await tx.record(apiWrite(actor, audit('deleted', id), [subscriptionEvent('webhook.subscription.deleted', row)]));
      });
    },

    /**
     * A new secret (hmac-sha256, returned once) or key pair (ed25519: the answer's `publicKey` is the new
     * one), which signs every attempt from now on. For `gracePeriodSeconds` (default a day, 0: none) the
     * replaced secret or private key keeps signing too (a second webhook-signature).
     */
    async rotateSecret(actorIn: Actor | undefined, id: string, body: WebhookRotateSecretBody = {}): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const grace = body.gracePeriodSeconds ?? SECRET_GRACE_DEFAULT_SECONDS;
      return write(async (tx) => {
        const before = await lastingSubscriptionInScope(tx.subscriptions, actor, id, { lock: true });
        const credential = newCredential(before.signatureScheme);
        const row = await tx.subscriptions.update(id, {
          publicKey: credential.publicKey,
          secretSealed: ports.secrets.seal(credential.sealable, id),
          previousSecretSealed: grace > 0 ? before.secretSealed : null,
          previousSecretUntil: grace > 0 ? new Date(Date.now() + grace * 1000) : null,
        });
        await tx.record(apiWrite(actor, audit('secret_rotated', id, { gracePeriodSeconds: grace })));
        return { ...presentSubscription(row), ...credential.shown };
      });
    },
  };
}
export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
