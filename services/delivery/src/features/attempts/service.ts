import type { SendResult } from '../../sender/http-sender.ts';
import type { ClaimedDelivery } from '../deliveries/queue-store.ts';
import { nextRetry, type RetryPolicy } from './backoff.ts';
import type { AttemptDecision } from './store.ts';

/**
 * The rule after an attempt of a scheduled delivery: a 2xx succeeds; a 410 Gone ends it and
 * disables the subscription (the dispatcher asks subscriptions/health.ts); another failure is
 * retried on the schedule (backoff.ts, honouring a Retry-After) until the
 * delivery's max age after its first attempt, then dead-lettered. Pure.
 */
export function decideNextStep(
  policy: RetryPolicy,
  delivery: Pick<ClaimedDelivery, 'attempts' | 'firstAttemptAt'>,
  result: Pick<SendResult, 'ok' | 'retryAfterMs' | 'responseCode'>,
  attemptedAt: Date,
  now: Date,
  random?: () => number,
): AttemptDecision {
  if (result.ok) return { kind: 'succeeded' };
  // Standard Webhooks: 410 Gone means the endpoint is gone for good; no retry.
  if (result.responseCode === 410) return { kind: 'gone' };
  const decision = nextRetry(policy, {
    failedAttempts: delivery.attempts + 1,
    firstAttemptAt: delivery.firstAttemptAt ?? attemptedAt,
    now,
    retryAfterMs: result.retryAfterMs,
    random,
  });
  return decision.kind === 'retry' ? { kind: 'retry', at: decision.at } : decision;
}

/** The `outcome` label of the deliveries metric for a decision. */
export function outcomeOf(decision: AttemptDecision): 'succeeded' | 'failed' | 'dead_letter' {
  return decision.kind === 'succeeded' ? 'succeeded' : decision.kind === 'dead_letter' ? 'dead_letter' : 'failed';
}

/**
 * The rule after a redelivery's attempt (features/recovery): a 2xx succeeds; a 410 Gone ends it and
 * disables the subscription; another failure leaves a scheduled retry where it was, and otherwise
 * ends the delivery failed (a redelivery never dead-letters nor schedules a retry of its own). Pure.
 */
export function decideRedelivery(
  delivery: { nextAttemptAt: Date | null },
  result: Pick<SendResult, 'ok' | 'responseCode'>,
): AttemptDecision {
  if (result.ok) return { kind: 'succeeded' };
  if (result.responseCode === 410) return { kind: 'gone' };
  return delivery.nextAttemptAt ? { kind: 'retry', at: new Date(delivery.nextAttemptAt) } : { kind: 'final_failure' };
}
