import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import { isEventName } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { isUuid, pageOffset } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';
import { DomainError, notFound, validation } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { queueAudit } from '../audit/forwarder.ts';
import type { DeliveryStore } from '../deliveries/store.ts';
import { requireActor } from '../lib/actor.ts';
import { toJson, type Page } from '../lib/json.ts';
import { newSigningSecret, type SecretBox } from '../lib/secret-box.ts';
import { checkDestination } from '../sender/address-guard.ts';

/** Public fields of a subscription (spec "Webhook subscription", plus updatedAt). The secret is not among them. */
export const SUBSCRIPTION_FIELDS = ['id', 'destinationUrl', 'eventNames', 'enabled', 'description', 'createdAt', 'updatedAt'] as const;

/** What leaves the service for a subscription: never the sealed secret. */
export function presentSubscription(row: Record<string, unknown>): JsonObject {
  return toJson(row, SUBSCRIPTION_FIELDS);
}

export interface SubscriptionServiceDeps {
  db: Knex;
  store: DeliveryStore;
  secrets: SecretBox;
  destinations: { production: boolean; allowPrivate: boolean };
  /** Called after a write committed its audit event (wakes the forwarder to the core). */
  audited?: () => void;
}

/** scheme://host:port of a URL: the unit of the per-destination concurrency bound. */
export function originOf(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.protocol}//${u.hostname}:${port}`;
}

/** Subscriptions of an organization: create, list, get, update, delete, rotate the secret. */
export function createSubscriptionService(deps: SubscriptionServiceDeps) {
  const { db, store, secrets } = deps;
  /** Runs a write's transaction, then wakes the audit forwarder. */
  const write = async <T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> => {
    const result = await db.transaction(fn);
    deps.audited?.();
    return result;
  };

  /** Unique names, in the given order; unknown names fail with the spec's exact body. */
  function checkEventNames(names: unknown): string[] {
    const list = (Array.isArray(names) ? names : []).map(String);
    const invalid = [...new Set(list.filter((n) => !isEventName(n)))];
    if (invalid.length) throw new DomainError('unknown_event_names', `unknown event names: ${invalid.join(', ')}`, { invalid });
    return [...new Set(list)];
  }

  async function checkUrl(url: string): Promise<void> {
    const problem = await checkDestination(url, deps.destinations);
    if (problem) throw validation([{ path: '/destinationUrl', message: problem }]);
  }

  function eventPayload(row: Record<string, unknown>) {
    return {
      subscriptionId: row.id, destinationUrl: row.destinationUrl, eventNames: row.eventNames, enabled: row.enabled,
      description: row.description ?? null,
    };
  }

  async function emit(trx: Knex.Transaction, actor: Actor, eventName: string, row: Record<string, unknown>) {
    await commitWrite(trx, 'delivery', { rows: [], events: [{
      eventName, entityType: 'webhook_subscription', entityId: row.id as string, organizationId: actor.organizationId,
      projectId: null, actorUserId: actor.userId || null, payload: eventPayload(row),
    }] });
  }

  return {
    /** A subscription of the actor's organization, not deleted; otherwise 404 (existence not disclosed). */
    async load(actor: Actor, id: string, trx: Knex = db, lock = false): Promise<Record<string, unknown>> {
      if (!isUuid(id)) throw notFound('webhook');
      const q = trx('delivery.subscriptions').where({ id, organizationId: actor.organizationId }).whereNull('deletedAt');
      if (lock) q.forUpdate();
      const row = await q.first();
      if (!row) throw notFound('webhook');
      return row;
    },

    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: number, pageSize: number): Promise<Page> {
      const actor = requireActor(actorIn);
      const q = db('delivery.subscriptions').where({ organizationId: actor.organizationId }).whereNull('deletedAt');
      if (typeof filters.enabled === 'boolean') q.andWhere({ enabled: filters.enabled });
      const [{ count }] = await q.clone().count({ count: '*' });
      const rows = await q
        .clone()
        .orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(pageSize)
        .offset(pageOffset(page, pageSize));
      return { data: rows.map(presentSubscription), page, pageSize, total: Number(count) };
    },

    async get(actorIn: Actor | undefined, id: string): Promise<JsonObject> {
      return presentSubscription(await this.load(requireActor(actorIn), id));
    },

    /** Creates a subscription; the answer carries `hmacSecret`, the only time besides rotation. */
    async create(actorIn: Actor | undefined, body: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const eventNames = checkEventNames(body.eventNames);
      const destinationUrl = String(body.destinationUrl);
      await checkUrl(destinationUrl);
      const id = randomUUID();
      const secret = newSigningSecret();
      return write(async (trx) => {
        const [row] = await trx('delivery.subscriptions')
          .insert({
            id,
            organizationId: actor.organizationId,
            destinationUrl,
            destinationOrigin: originOf(destinationUrl),
            eventNames,
            enabled: body.enabled === undefined ? true : Boolean(body.enabled),
            description: (body.description as string | null | undefined) ?? null,
            secretSealed: secrets.seal(secret, id),
            createdByUserId: actor.userId || null,
          })
          .returning('*');
        await emit(trx, actor, 'webhook.subscription.created', row);
        await queueAudit(trx, actor, 'created', id, { destinationUrl, eventNames });
        return { ...presentSubscription(row), hmacSecret: secret };
      });
    },

    /** Changes only supplied fields. Disabling stops the subscription's scheduled retries. */
    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const values: Record<string, unknown> = {};
      if ('eventNames' in body) values.eventNames = checkEventNames(body.eventNames);
      if ('destinationUrl' in body) {
        const url = String(body.destinationUrl);
        await checkUrl(url);
        values.destinationUrl = url;
        values.destinationOrigin = originOf(url);
      }
      if ('description' in body) values.description = body.description ?? null;
      if ('enabled' in body) values.enabled = Boolean(body.enabled);
      return write(async (trx) => {
        const before = await this.load(actor, id, trx, true);
        const [row] = Object.keys(values).length
          ? await trx('delivery.subscriptions').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        if (before.enabled && !row.enabled) await store.stopPending(trx, id, 'retries stopped: subscription disabled');
        await queueAudit(trx, actor, 'updated', id, { fields: Object.keys(body) });
        return presentSubscription(row);
      });
    },

    /** Deletes (soft: records stay for the audit trail) and stops pending retries. */
    async remove(actorIn: Actor | undefined, id: string): Promise<void> {
      const actor = requireActor(actorIn);
      await write(async (trx) => {
        const row = await this.load(actor, id, trx, true);
        await trx('delivery.subscriptions').where({ id }).update({ deletedAt: trx.fn.now(), enabled: false, updatedAt: trx.fn.now() });
        await store.stopPending(trx, id, 'retries stopped: subscription deleted');
        await emit(trx, actor, 'webhook.subscription.deleted', row);
        await queueAudit(trx, actor, 'deleted', id);
      });
    },

    /** A new secret, which signs every attempt from now on; returned once. */
    async rotateSecret(actorIn: Actor | undefined, id: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const secret = newSigningSecret();
      return write(async (trx) => {
        await this.load(actor, id, trx, true);
        const [row] = await trx('delivery.subscriptions')
          .where({ id })
          .update({ secretSealed: secrets.seal(secret, id), updatedAt: trx.fn.now() })
          .returning('*');
        await queueAudit(trx, actor, 'secret_rotated', id);
        return { ...presentSubscription(row), hmacSecret: secret };
      });
    },
  };
}
export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
