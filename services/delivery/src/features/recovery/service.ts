import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import type { WebhookRecoverRequestBody } from '@cluster/contracts';
import { afterCommit } from '@cluster/db';
import {
  DomainError,
  notFound,
  requireActor,
  rowToJson,
  validation,
  type Logger,
  type PeriodicJobDefinition,
  type SecretBox,
} from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { DeliveryMetrics } from '../../metrics.ts';
import { attemptDelivery } from '../../sender/attempt-delivery.ts';
import type { DeliverySender } from '../../sender/destination.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { recordAttemptOutcome } from '../attempts/outcome.ts';
import { decideRedelivery } from '../attempts/service.ts';
import type { AttemptRecord } from '../attempts/store.ts';
import { presentDeliveryWithAttempts } from '../deliveries/presenter.ts';
import { subscriptionInScope } from '../subscriptions/scope.ts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { RecoveryRow } from './store.ts';

const DAY_MS = 86_400_000;
/** Deliveries a recovery queues per statement. */
const BATCH = 500;
/** A running recovery no replica has moved for this long is resumed by another. */
const STALE_MS = 30_000;

/** What redeliveries and recoveries need besides the stores. */
export interface RecoveryPorts {
  sender: DeliverySender;
  secrets: SecretBox;
  metrics: Pick<DeliveryMetrics, 'deliveries' | 'attemptDuration'>;
  /** Counts one on-demand call of the organization (test-calls/limit.ts), or throws 429. */
  countCall(organizationId: string): Promise<void>;
  /** Delivery records are kept this long (0: forever): a recovery's window starts within it. */
  retentionMs: number;
  /** The lease of a redelivery's attempt. */
  leaseMs: number;
  /** A redelivery answered 410 Gone disables the subscription (subscriptions/health.ts). */
  onGone?(subscriptionId: string): Promise<boolean>;
  /** Deliveries were queued again: the sender should look now. */
  onRequeued?(): void;
  /** Called after a write committed its audit record (wakes the forwarder to the core). */
  audited?(): void;
  logger?: Logger;
  clock?: () => Date;
}

/** What leaves the service for a recovery: these fields (never its cursor or organization). */
const RECOVERY_FIELDS = [
  'id',
  'subscriptionId',
  'since',
  'until',
  'status',
  'requeued',
  'createdAt',
  'completedAt',
] as const satisfies readonly (keyof RecoveryRow)[];

const presentRecovery = (row: RecoveryRow): JsonObject => rowToJson(row, { only: RECOVERY_FIELDS });

/** Refuses a disabled subscription: nothing would be sent (409). */
function assertEnabled(sub: SubscriptionRow): void {
  if (!sub.enabled) throw new DomainError('conflict', 'the subscription is disabled: enable it first (PATCH {"enabled": true})');
}

/**
 * Redeliver and recover (docs/webhooks.md, "Redeliver and recover"). A redelivery sends one delivery
 * again now, whatever its status, as a new attempt on the same delivery id (same signature scheme,
 * recorded in its attempt log, audited): a success makes it `succeeded`; a failure leaves a scheduled
 * retry where it was, and otherwise ends it `failed`. A recovery queues again every delivery of a
 * window that ended `failed` or `dead_letter`, with a fresh retry period, in the background; its
 * progress is a record of its own. Both count against the organization's on-demand budget.
 */
export function createRecoveryService(stores: Stores, ports: RecoveryPorts) {
  const clock = ports.clock ?? (() => new Date());
  const running = new Set<string>();
  let stopping = false;
  const outcomePorts = {
    record: (item: AttemptRecord) => stores.attempts.recordAttempt(item),
    metrics: ports.metrics,
    onGone: ports.onGone,
    logger: ports.logger,
  };

  /** Runs a recovery to its end, a batch at a time (one replica at a time per recovery, in this process). */
  async function run(recovery: RecoveryRow): Promise<void> {
    if (running.has(recovery.id)) return;
    running.add(recovery.id);
    try {
      for (let row: RecoveryRow | undefined = recovery; row && row.status === 'running' && !stopping;) {
        const { requeued, done } = await stores.recovery.requeueBatch(row, BATCH);
        if (requeued) ports.onRequeued?.();
        if (done) break;
        row = await stores.recovery.find(row.organizationId, row.subscriptionId, row.id);
      }
    } catch (err) {
      ports.logger?.warn({ err, recoveryId: recovery.id }, 'recovery interrupted; another pass resumes it');
    } finally {
      running.delete(recovery.id);
    }
  }

  return {
    async redeliver(actorIn: Actor | undefined, subscriptionId: string, deliveryId: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const sub = await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      if (!(await stores.deliveryReads.find(actor.organizationId, sub.id, deliveryId))) throw notFound('delivery');
      assertEnabled(sub);
      await ports.countCall(actor.organizationId);
      const d = await stores.recovery.leaseOne(sub.id, deliveryId, ports.leaseMs);
      if (!d) throw new DomainError('conflict', 'an attempt of this delivery is in flight; try again in a moment');
      const { result, attemptedAt } = await attemptDelivery(d, ports.sender, ports.secrets);
      const decision = decideRedelivery(d, result);
      await recordAttemptOutcome(outcomePorts, { delivery: d, result, attemptedAt, decision });
      await stores.record(
        apiWrite(actor, {
          entityType: 'webhook_delivery',
          action: 'redelivered',
          entityId: deliveryId,
          metadata: { subscriptionId: sub.id, attempt: d.attempts + 1, outcome: result.ok ? 'succeeded' : 'failed' },
        }),
      );
      ports.audited?.();
      // Gone meanwhile: its week was dropped past the retention while it was being sent (migration 018).
      const row = await stores.deliveryReads.find(actor.organizationId, sub.id, deliveryId);
      if (!row) throw notFound('delivery');
      return presentDeliveryWithAttempts(row, await stores.attempts.listFor(deliveryId));
    },

    async recover(actorIn: Actor | undefined, subscriptionId: string, body: WebhookRecoverRequestBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const sub = await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const now = clock();
      const since = new Date(body.since);
      const until = body.until === undefined ? now : new Date(body.until);
      if (Number.isNaN(since.getTime())) throw validation([{ path: '/since', message: 'must be a date-time' }]);
      if (Number.isNaN(until.getTime())) throw validation([{ path: '/until', message: 'must be a date-time' }]);
      if (until <= since) throw validation([{ path: '/until', message: 'must be after since' }]);
      if (ports.retentionMs > 0 && since.getTime() < now.getTime() - ports.retentionMs) {
        const days = Math.round(ports.retentionMs / DAY_MS);
        throw validation([
          { path: '/since', message: `must be within the retention period (${days} days): older records are deleted` },
        ]);
      }
      assertEnabled(sub);
      await ports.countCall(actor.organizationId);
      const recovery = await stores.transaction(async (tx) => {
        const row = await tx.recovery.insert({
          id: randomUUID(),
          organizationId: actor.organizationId,
          subscriptionId: sub.id,
          since,
          until,
        });
        await tx.record(
          apiWrite(actor, {
            entityType: 'webhook_subscription',
            action: 'recovery_started',
            entityId: sub.id,
            metadata: { recoveryId: row.id, since: since.toISOString(), until: until.toISOString() },
          }),
        );
        return row;
      });
      ports.audited?.();
      // In the background once the call's transaction has committed the recovery (never inside it: @cluster/db afterCommit).
      afterCommit(() => void run(recovery));
      return presentRecovery(recovery);
    },

    async getRecovery(actorIn: Actor | undefined, subscriptionId: string, id: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const sub = await subscriptionInScope(stores.subscriptions, actor, subscriptionId);
      const row = await stores.recovery.find(actor.organizationId, sub.id, id);
      if (!row) throw notFound('recovery');
      return presentRecovery(row);
    },

    /** Resumes the recoveries whose replica stopped (every replica's recoveryResumeJob). */
    async resumeStale(): Promise<number> {
      const stale = await stores.recovery.stale(STALE_MS);
      for (const row of stale) void run(row);
      return stale.length;
    },

    /** Shutdown: each running recovery stops after its current batch (another replica resumes it). */
    async stop(): Promise<void> {
      stopping = true;
      while (running.size) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
export type RecoveryService = ReturnType<typeof createRecoveryService>;

/** Every replica resumes, every `intervalMs`, the recoveries a stopped replica left running (resumeStale). */
export function recoveryResumeJob(recovery: Pick<RecoveryService, 'resumeStale'>, intervalMs: number): PeriodicJobDefinition {
  return { name: 'recovery_resume', what: 'resumption of stale recoveries', intervalMs, run: () => recovery.resumeStale() };
}
