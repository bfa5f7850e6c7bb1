/** Retry policy inputs (README, "Configuration": WEBHOOK_RETRY_BASE_MS, WEBHOOK_RETRY_MAX_AGE_MS). */
export interface RetryPolicy {
  baseMs: number;
  maxAgeMs: number;
  maxStepMs: number;
  /** Growth of each step over the last (docs/decisions-api.md: about four times). */
  factor?: number;
  /** Relative jitter, +-20% by default. */
  jitter?: number;
  /** Longest pause a receiver's Retry-After imposes (WEBHOOK_RETRY_AFTER_MAX_MS, 1 h by default). */
  maxPauseMs?: number;
}

/** The default longest pause of a Retry-After, and the shortest (a `Retry-After: 0` must not make a loop). */
export const DEFAULT_MAX_PAUSE_MS = 3_600_000;
export const MIN_PAUSE_MS = 1000;

/** How long a receiver's Retry-After pauses its subscription: at least a second, at most `maxPauseMs`. */
export function pauseMs(policy: Pick<RetryPolicy, 'maxPauseMs'>, retryAfterMs: number): number {
  return Math.min(Math.max(retryAfterMs, MIN_PAUSE_MS), policy.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS);
}

/** What to do after a failed attempt. */
export type RetryDecision = { kind: 'retry'; at: Date; delayMs: number } | { kind: 'dead_letter' };

/**
 * The nominal wait after the n-th failed attempt (n from 1), before jitter:
 * base, 4x base, 16x base, ... never longer than maxStepMs.
 */
export function nominalDelayMs(policy: RetryPolicy, failedAttempts: number): number {
  const factor = policy.factor ?? 4;
  const raw = policy.baseMs * factor ** Math.max(0, failedAttempts - 1);
  return Math.min(raw, policy.maxStepMs);
}

/**
 * Schedules the next attempt after `failedAttempts` failures, or gives up. Retries
 * last until maxAgeMs after the first attempt: a step that would overshoot that
 * deadline is shortened to a final attempt at the deadline, and a failure at or
 * after the deadline dead-letters. A receiver's Retry-After (429/503) is honoured
 * as a lower bound, up to the longest step (maxStepMs) and still within the deadline.
 */
export function nextRetry(
  policy: RetryPolicy,
  args: { failedAttempts: number; firstAttemptAt: Date; now: Date; retryAfterMs?: number; random?: () => number },
): RetryDecision {
  const deadline = args.firstAttemptAt.getTime() + policy.maxAgeMs;
  const now = args.now.getTime();
  if (now >= deadline) return { kind: 'dead_letter' };
  const jitter = policy.jitter ?? 0.2;
  const rand = args.random ?? Math.random;
  let delay = Math.min(nominalDelayMs(policy, args.failedAttempts) * (1 - jitter + 2 * jitter * rand()), policy.maxStepMs);
  // A Retry-After may only slow the schedule, and by no more than its longest step: a hostile
  // receiver can neither hurry the retries nor park them for the rest of the day.
  if (args.retryAfterMs !== undefined && args.retryAfterMs > delay) delay = Math.min(args.retryAfterMs, policy.maxStepMs);
  delay = Math.max(0, Math.min(Math.round(delay), deadline - now));
  return { kind: 'retry', at: new Date(now + delay), delayMs: delay };
}
