import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import type { WebhookEnvelope, WebhookTestRequestBody } from '@cluster/contracts';
import { requireActor, validation, type SecretBox } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { DeliveryMetrics } from '../../metrics.ts';
import { attemptDelivery } from '../../sender/attempt-delivery.ts';
import type { HttpSender } from '../../sender/http-sender.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { subscriptionInScope } from '../subscriptions/scope.ts';
import { createCallLimit } from './limit.ts';

/** What a test call needs besides the stores. */
export interface TestCallPorts {
  sender: HttpSender;
  secrets: SecretBox;
  metrics: Pick<DeliveryMetrics, 'deliveries' | 'attemptDuration'>;
  /** Calls per organization per rolling hour. */
  limitPerHour: number;
  clock?: () => Date;
  /** Called after the call's audit record was written (wakes the forwarder to the core). */
  audited?: () => void;
}

/**
 * POST /webhooks/:id/test: a synthetic signed delivery, sent now and answered
 * with its outcome. Counted per organization over a rolling hour in Postgres, so
 * the limit holds across replicas. Order of checks: unknown or foreign
 * subscription 404 (not counted), then the limit (429, counted calls only), then
 * the event name (400, counted: it was a call).
 */
export function createTestCallService(stores: Stores, ports: TestCallPorts) {
  const clock = ports.clock ?? (() => new Date());

  const countCall = createCallLimit(stores, ports);

  return {
    async fire(actorIn: Actor | undefined, id: string, body: WebhookTestRequestBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const sub = await subscriptionInScope(stores.subscriptions, actor, id);
      await countCall(actor.organizationId);
      const eventName = typeof body.eventName === 'string' ? body.eventName : 'webhook.test';
      if (body.eventName !== undefined && !sub.eventNames.includes(eventName)) {
        throw validation([{ path: '/eventName', message: `is not one of this subscription's eventNames` }]);
      }
      const firedAt = clock().toISOString();
      const result: JsonObject = { deliveryId: null, subscriptionId: sub.id, eventName, firedAt };
      if (!sub.enabled) return { ...result, deliveryError: 'the subscription is disabled; nothing was sent' };

      const deliveryId = randomUUID();
      const envelope: WebhookEnvelope = {
        id: deliveryId,
        eventName,
        schemaVersion: 1,
        entityType: 'webhook_subscription',
        entityId: sub.id,
        occurredAt: firedAt,
        actorUserId: actor.userId || null,
        payload: { test: true, subscriptionId: sub.id, occurredAt: firedAt },
      };
      const delivery = {
        id: deliveryId,
        organizationId: actor.organizationId,
        subscriptionId: sub.id,
        eventName,
        body: JSON.stringify(envelope),
        destinationUrl: sub.destinationUrl,
        secretSealed: sub.secretSealed,
      };
      // A test delivery is recorded like any other, with no retry schedule; its lease is held for the send.
      const leaseToken = randomUUID();
      await stores.deliveryQueue.insertMany([{ ...delivery, eventId: null, test: true, leaseToken }]);
      const { result: sent, attemptedAt } = await attemptDelivery(
        { ...delivery, previousSecretSealed: sub.previousSecretSealed, previousSecretUntil: sub.previousSecretUntil },
        ports.sender,
        ports.secrets,
      );
      await stores.attempts.recordAttempt({
        delivery: { ...delivery, leaseToken, attempts: 0, firstAttemptAt: null },
        result: sent,
        attemptedAt,
        decision: sent.ok ? { kind: 'succeeded' } : { kind: 'final_failure' },
      });
      await stores.record(
        apiWrite(actor, { entityType: 'webhook_subscription', action: 'tested', entityId: sub.id, metadata: { eventName } }),
      );
      ports.audited?.();
      ports.metrics.deliveries.inc({ outcome: sent.ok ? 'succeeded' : 'failed' });
      ports.metrics.attemptDuration.observe({ outcome: sent.ok ? 'succeeded' : 'failed' }, sent.durationMs / 1000);
      return sent.ok ? { ...result, deliveryId } : { ...result, deliveryId, deliveryError: sent.error ?? 'delivery failed' };
    },
  };
}
export type TestCallService = ReturnType<typeof createTestCallService>;
