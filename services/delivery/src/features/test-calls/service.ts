import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import {
  eventTypeNamed,
  freshEventExample,
  matchesWebhookFilter,
  subscribesTo,
  webhookFilterInput,
  type WebhookEnvelope,
  type WebhookTestRequestBody,
} from '@cluster/contracts';
import { createAjv, requireActor, toProblems, validation, type Problem, type SecretBox } from '@cluster/platform';
import type { ValidateFunction } from 'ajv';
import type { Actor } from '@cluster/proto';
import type { DeliveryMetrics } from '../../metrics.ts';
import { attemptDelivery } from '../../sender/attempt-delivery.ts';
import { recordAttemptOutcome } from '../attempts/outcome.ts';
import type { DeliverySender } from '../../sender/destination.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { subscriptionInScope } from '../subscriptions/scope.ts';
import { createCallLimit } from './limit.ts';

/** What a test call needs besides the stores. */
export interface TestCallPorts {
  sender: DeliverySender;
  secrets: SecretBox;
  metrics: Pick<DeliveryMetrics, 'deliveries' | 'attemptDuration'>;
  /** Calls per organization per rolling hour. */
  limitPerHour: number;
  clock?: () => Date;
  /** Called after the call's audit record was written (wakes the forwarder to the core). */
  audited?: () => void;
}

/**
 * The body of a test delivery: the catalogue's example of the event asked for (event-examples.ts of
 * @cluster/contracts), with fresh ids, the caller's organization and actor, and the call's time
 * (docs/webhooks.md, "Test deliveries"). `webhook.test` names the subscription it was sent to.
 */
export function testEnvelope(
  eventName: string,
  ctx: {
    deliveryId: string;
    organizationId: string;
    actorUserId: string | null;
    now: Date;
    subscriptionId: string;
    /** The caller's payload fields, which replace the example's (checked by `payloadProblems`). */
    payload?: JsonObject;
  },
): WebhookEnvelope {
  const test = eventName === 'webhook.test';
  const envelope = freshEventExample(eventName, {
    ...ctx,
    payload: test ? { subscriptionId: ctx.subscriptionId } : (ctx.payload ?? {}),
  });
  // Every name a subscription can select is in the catalogue; a name outside it (never reached) gets webhook.test's body.
  if (!envelope) return testEnvelope('webhook.test', ctx);
  return test ? { ...envelope, entityId: ctx.subscriptionId } : envelope;
}

const payloadChecks = new Map<string, ValidateFunction>();
const ajv = createAjv();

/**
 * What is wrong with a test envelope's payload for its event's payload schema (the catalogue's), as pointers
 * into the test body (`/payload/...`): a payload of the caller's own must be one the platform could send.
 */
export function payloadProblems(envelope: WebhookEnvelope): Problem[] {
  const entry = eventTypeNamed(envelope.eventName);
  if (!entry) return [];
  let check = payloadChecks.get(entry.name);
  if (!check) payloadChecks.set(entry.name, (check = ajv.compile(entry.payloadSchema)));
  return check(envelope.payload) ? [] : toProblems(check.errors).map((p) => ({ ...p, path: `/payload${p.path}` }));
}

/**
 * POST /webhooks/:id/test: a synthetic signed delivery, sent now and answered
 * with its outcome. Counted per organization over a rolling hour in Postgres, so
 * the limit holds across replicas. Order of checks: unknown or foreign
 * subscription 404 (not counted), then the limit (429, counted calls only), then
 * the event name and the caller's payload fields (400, counted: it was a call). A named event its filter keeps back is
 * answered `filterMatched: false` and not sent (counted: it was a call).
 */
export function createTestCallService(stores: Stores, ports: TestCallPorts) {
  const clock = ports.clock ?? (() => new Date());

  const countCall = createCallLimit(stores, ports);
  const audit = async (actor: Actor, id: string, eventName: string) => {
    await stores.record(
      apiWrite(actor, { entityType: 'webhook_subscription', action: 'tested', entityId: id, metadata: { eventName } }),
    );
    ports.audited?.();
  };

  return {
    async fire(actorIn: Actor | undefined, id: string, body: WebhookTestRequestBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const sub = await subscriptionInScope(stores.subscriptions, actor, id);
      await countCall(actor.organizationId);
      const eventName = typeof body.eventName === 'string' ? body.eventName : 'webhook.test';
      if (body.eventName !== undefined && !subscribesTo(sub.eventNames, eventName)) {
        throw validation([{ path: '/eventName', message: `is not selected by this subscription's eventNames` }]);
      }
      if (body.payload !== undefined && body.eventName === undefined) {
        throw validation([{ path: '/payload', message: 'is for a named event (eventName); webhook.test’s payload is fixed' }]);
      }
      const firedAt = clock().toISOString();
      const deliveryId = randomUUID();
      const envelope = testEnvelope(eventName, {
        deliveryId,
        organizationId: actor.organizationId,
        actorUserId: actor.userId || null,
        now: new Date(firedAt),
        subscriptionId: sub.id,
        payload: body.payload,
      });
      if (body.payload !== undefined) {
        const problems = payloadProblems(envelope);
        if (problems.length) throw validation(problems);
      }
      // A named event meets the subscription's filter as that event would at fan-out; `webhook.test`, the
      // connectivity check, is sent whatever the filter says, as it is whatever the eventNames say.
      const filterMatched =
        body.eventName === undefined ? undefined : !sub.filter || matchesWebhookFilter(sub.filter, webhookFilterInput(envelope));
      const result: JsonObject = {
        deliveryId: null,
        subscriptionId: sub.id,
        eventName,
        firedAt,
        ...(filterMatched === undefined ? {} : { filterMatched }),
      };
      if (!sub.enabled) return { ...result, deliveryError: 'the subscription is disabled; nothing was sent' };
      if (filterMatched === false) {
        return { ...result, deliveryError: 'the event does not match the subscription’s filter; nothing was sent' };
      }
      const delivery = {
        id: deliveryId,
        // Its time here, so the record of its attempt names its partition (migration 018); the id is new.
        createdAt: new Date(),
        organizationId: actor.organizationId,
        subscriptionId: sub.id,
        eventName,
        body: JSON.stringify(envelope),
        destinationUrl: sub.destinationUrl,
        secretSealed: sub.secretSealed,
      };
      if (sub.temporary) {
        // A listener's subscription: the delivery goes down its stream (features/listen), which claims it
        // once the insert's notification wakes it; the CLI shows what its local receiver answered.
        await stores.deliveryQueue.insertMany([{ ...delivery, eventId: null, test: true }]);
        await audit(actor, sub.id, eventName);
        return { ...result, deliveryId };
      }
      // A test delivery is recorded like any other, with no retry schedule; its lease is held for the send.
      const leaseToken = randomUUID();
      await stores.deliveryQueue.insertMany([{ ...delivery, eventId: null, test: true, leaseToken }]);
      const { result: sent, attemptedAt } = await attemptDelivery(
        {
          ...delivery,
          previousSecretSealed: sub.previousSecretSealed,
          previousSecretUntil: sub.previousSecretUntil,
          receiverSealed: sub.receiverSealed,
        },
        ports.sender,
        ports.secrets,
      );
      await recordAttemptOutcome(
        { record: (item) => stores.attempts.recordAttempt(item), metrics: ports.metrics },
        {
          delivery: { ...delivery, leaseToken, attempts: 0, firstAttemptAt: null },
          result: sent,
          attemptedAt,
          decision: sent.ok ? { kind: 'succeeded' } : { kind: 'final_failure' },
        },
      );
      await audit(actor, sub.id, eventName);
      return sent.ok ? { ...result, deliveryId } : { ...result, deliveryId, deliveryError: sent.error ?? 'delivery failed' };
    },
  };
}
export type TestCallService = ReturnType<typeof createTestCallService>;
