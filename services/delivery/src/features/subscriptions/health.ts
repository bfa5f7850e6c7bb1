import type { Logger, PeriodicJobDefinition } from '@cluster/platform';
import { systemWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { subscriptionDisabledEvent, subscriptionFailingEvent } from './events.ts';

/** What the service watches of its endpoints (docs/webhooks.md, "Failing endpoints"). */
export interface HealthPolicy {
  /** Failed attempts in a row that make a subscription `failing` (webhook.subscription.failing, once per run). */
  failingAfterFailures: number;
  /** How long every attempt may fail before the subscription is disabled (`failing`). */
  disableAfterMs: number;
}

/**
 * A subscription's health, kept by the attempt statements (attempts/store.ts: a failed attempt adds to
 * `consecutiveFailures` and starts `failingSince`; any success resets both), acted on here: a 410 Gone
 * disables the subscription at once (`disable`), and the sweep announces a run of failures once and
 * disables an endpoint that has failed for the whole period. Every disabling stops the subscription's
 * retries, emits webhook.subscription.disabled and is audited as the system's. Conditional updates make
 * each act happen once, whichever replica gets there first.
 */
export function createSubscriptionHealth(stores: Stores, policy: HealthPolicy) {
  async function disable(id: string, reason: 'gone' | 'failing'): Promise<boolean> {
    return stores.transaction(async (tx) => {
      const row = await tx.subscriptions.disableFor(id, reason);
      if (!row) return false;
      await tx.deliveryQueue.stopPending(
        id,
        `retries stopped: subscription disabled (${reason === 'gone' ? '410 Gone' : 'failing'})`,
      );
      await tx.record(
        systemWrite(
          row.organizationId,
          {
            entityType: 'webhook_subscription',
            action: 'disabled',
            entityId: id,
            metadata: { disabledReason: reason, consecutiveFailures: row.consecutiveFailures, failingSince: row.failingSince },
          },
          [subscriptionDisabledEvent(row)],
        ),
      );
      return true;
    });
  }

  return {
    /** Disables a subscription whose endpoint answered 410 Gone; false when it was no longer enabled. */
    disableGone: (id: string) => disable(id, 'gone'),

    /** One pass: `failing` notices, then disablings; how many of each. */
    async sweep(now = new Date()): Promise<{ failing: number; disabled: number }> {
      const failing = await stores.transaction(async (tx) => {
        const rows = await tx.subscriptions.claimFailingNotices(policy.failingAfterFailures);
        for (const row of rows) await tx.record(systemWrite(row.organizationId, null, [subscriptionFailingEvent(row)]));
        return rows.length;
      });
      let disabled = 0;
      for (const id of await stores.subscriptions.failingSinceBefore(new Date(now.getTime() - policy.disableAfterMs))) {
        if (await disable(id, 'failing')) disabled++;
      }
      return { failing, disabled };
    },
  };
}

/** The health sweep of one replica, every `intervalMs`. */
export function healthSweepJob(
  health: ReturnType<typeof createSubscriptionHealth>,
  opts: { intervalMs: number; logger: Logger },
): PeriodicJobDefinition {
  return {
    name: 'subscription_health',
    what: 'subscription health sweep',
    intervalMs: opts.intervalMs,
    async run() {
      const done = await health.sweep();
      if (done.failing || done.disabled) opts.logger.warn(done, 'webhook endpoints failing or disabled');
    },
  };
}
