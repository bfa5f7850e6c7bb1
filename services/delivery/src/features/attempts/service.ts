import type { SendResult } from '../../sender/http-sender.ts';
import type { ClaimedDelivery } from '../deliveries/queue-store.ts';
import { nextRetry, pauseMs, type RetryPolicy } from './backoff.ts';
import type { AttemptDecision } from './store.ts';

/**
 * Whether an answer is the receiver throttling us: a 429 or 503 with a Retry-After (sender/retry-after.ts
 * parsed it). Without one, a 429 or 503 is an ordinary failure (docs/webhooks.md, "Throttling").
 */
export function isThrottleAnswer(result: Pick<SendResult, 'ok' | 'responseCode' | 'retryAfterMs'>): boolean {
  return !result.ok && (result.responseCode === 429 || result.responseCode === 503) && result.retryAfterMs !== undefined;
}

/**
 * The rule after an attempt of a scheduled delivery: a 2xx succeeds; a 410 Gone ends it and
 * disables the subscription (the dispatcher asks subscriptions/health.ts); a 429 or 503 with a
 * Retry-After pauses the subscription that long (at least 1 s, at most `maxPauseMs`) and tries the
 * delivery again then, as no failure (no backoff step, no health count), within the delivery's
 * retry deadline; another failure is retried on the schedule (backoff.ts), whose steps count the
 * failures only, until the delivery's max age after its first attempt, then dead-lettered. Pure.
 */
export function decideNextStep(
  policy: RetryPolicy,
  delivery: Pick<ClaimedDelivery, 'attempts' | 'firstAttemptAt' | 'throttledAttempts'>,
  result: Pick<SendResult, 'ok' | 'retryAfterMs' | 'responseCode'>,
  attemptedAt: Date,
  now: Date,
  random?: () => number,
): AttemptDecision {
  if (result.ok) return { kind: 'succeeded' };
  // Standard Webhooks: 410 Gone means the endpoint is gone for good; no retry.
  if (result.responseCode === 410) return { kind: 'gone' };
  if (isThrottleAnswer(result)) {
    const deadline = (delivery.firstAttemptAt ?? attemptedAt).getTime() + policy.maxAgeMs;
    if (now.getTime() >= deadline) return { kind: 'dead_letter' };
    const until = new Date(now.getTime() + pauseMs(policy, result.retryAfterMs!));
    return { kind: 'paused', until, at: new Date(Math.min(until.getTime(), deadline)) };
  }
  const decision = nextRetry(policy, {
    failedAttempts: delivery.attempts + 1 - (delivery.throttledAttempts ?? 0),
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
