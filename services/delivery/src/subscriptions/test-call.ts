import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import type { Knex } from '@cluster/db';
import { DomainError, validation } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { queueAudit } from '../audit/forwarder.ts';
import type { DeliveryStore } from '../deliveries/store.ts';
import type { WebhookEnvelope } from '../deliveries/envelope.ts';
import { requireActor } from '../lib/actor.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { DeliveryMetrics } from '../metrics.ts';
import type { HttpSender } from '../sender/http-sender.ts';
import { attemptDelivery } from '../sender/worker.ts';
import type { SubscriptionService } from './service.ts';

const HOUR_MS = 3_600_000;

export interface TestCallDeps {
  db: Knex;
  store: DeliveryStore;
  subscriptions: SubscriptionService;
  sender: HttpSender;
  secrets: SecretBox;
  metrics: DeliveryMetrics;
  limitPerHour: number;
  clock?: () => Date;
  /** Called after the call's audit event was queued (wakes the forwarder to the core). */
  audited?: () => void;
}

/**
 * POST /webhooks/:id/test: a synthetic signed delivery, sent now and answered
 * with its outcome. Counted per organization over a rolling hour in Postgres, so
 * the limit holds across replicas. Order of checks: unknown or foreign
 * subscription 404 (not counted), then the limit (429, counted calls only), then
 * the event name (400, counted: it was a call).
 */
export function createTestCaller(deps: TestCallDeps) {
  const clock = deps.clock ?? (() => new Date());

  /** Counts this call, or throws 429 with retryAfter when the organization has used its calls. */
  async function countCall(organizationId: string): Promise<void> {
    const now = clock();
    const windowStart = new Date(now.getTime() - HOUR_MS);
    await deps.db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`webhook-test:${organizationId}`]);
      await trx('delivery.test_calls').where({ organizationId }).andWhere('calledAt', '<=', windowStart).del();
      const calls: { calledAt: Date }[] = await trx('delivery.test_calls')
        .where({ organizationId })
        .andWhere('calledAt', '>', windowStart)
        .orderBy('calledAt', 'asc')
        .select('calledAt');
      if (calls.length >= deps.limitPerHour) {
        const frees = new Date(calls[calls.length - deps.limitPerHour].calledAt).getTime() + HOUR_MS;
        const retryAfter = Math.max(1, Math.ceil((frees - now.getTime()) / 1000));
        throw new DomainError('rate_limit', `at most ${deps.limitPerHour} test deliveries per organization per hour`, { retryAfter });
      }
      await trx('delivery.test_calls').insert({ organizationId, calledAt: now });
    });
  }

  return {
    async fire(actorIn: Actor | undefined, id: string, body: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const sub = await deps.subscriptions.load(actor, id);
      await countCall(actor.organizationId);
      const eventName = typeof body.eventName === 'string' ? body.eventName : 'webhook.test';
      if (body.eventName !== undefined && !(sub.eventNames as string[]).includes(eventName)) {
        throw validation([{ path: '/eventName', message: `is not one of this subscription's eventNames` }]);
      }
      const firedAt = clock().toISOString();
      const result: JsonObject = { deliveryId: null, subscriptionId: sub.id as string, eventName, firedAt };
      if (!sub.enabled) return { ...result, deliveryError: 'the subscription is disabled; nothing was sent' };

      const deliveryId = randomUUID();
      const envelope: WebhookEnvelope = {
        id: deliveryId, eventName, schemaVersion: 1, entityType: 'webhook_subscription', entityId: sub.id as string,
        occurredAt: firedAt, actorUserId: actor.userId || null,
        payload: { test: true, subscriptionId: sub.id as string, occurredAt: firedAt },
      };
      const delivery = {
        id: deliveryId, organizationId: actor.organizationId, subscriptionId: sub.id as string, eventName,
        body: JSON.stringify(envelope), destinationUrl: sub.destinationUrl as string, secretSealed: sub.secretSealed as string,
      };
      // A test delivery is recorded like any other, with no retry schedule; its lease is held for the send.
      const leaseToken = randomUUID();
      await deps.store.insertMany([{ ...delivery, eventId: null, test: true, leaseToken }]);
      const { result: sent, attemptedAt } = await attemptDelivery(delivery, deps.sender, deps.secrets);
      await deps.store.recordAttempt({
        delivery: { ...delivery, leaseToken, attempts: 0, firstAttemptAt: null },
        result: sent,
        attemptedAt,
        decision: sent.ok ? { kind: 'succeeded' } : { kind: 'final_failure' },
      });
      await queueAudit(deps.db, actor, 'tested', sub.id as string, { eventName });
      deps.audited?.();
      deps.metrics.deliveries.inc({ outcome: sent.ok ? 'succeeded' : 'failed' });
      deps.metrics.attemptDuration.observe({ outcome: sent.ok ? 'succeeded' : 'failed' }, sent.durationMs / 1000);
      return sent.ok ? { ...result, deliveryId } : { ...result, deliveryId, deliveryError: sent.error ?? 'delivery failed' };
    },
  };
}
