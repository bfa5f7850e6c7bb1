import { describe, expect, it } from 'vitest';
import { nextRetry, nominalDelayMs } from './backoff.ts';

const policy = { baseMs: 5000, maxAgeMs: 86_400_000, maxStepMs: 7_200_000 };
const t0 = new Date('2026-01-01T00:00:00Z');

describe('retry schedule', () => {
  it('grows four times per step from the base and caps a step at 2 h', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => nominalDelayMs(policy, n))).toEqual([
      5000, 20000, 80000, 320000, 1280000, 5120000, 7200000, 7200000,
    ]);
  });

  it('jitters each step within +-20%', () => {
    const low = nextRetry(policy, { failedAttempts: 2, firstAttemptAt: t0, now: t0, random: () => 0 });
    const high = nextRetry(policy, { failedAttempts: 2, firstAttemptAt: t0, now: t0, random: () => 1 });
    expect(low).toMatchObject({ kind: 'retry', delayMs: 16000 });
    expect(high).toMatchObject({ kind: 'retry', delayMs: 24000 });
    const capped = nextRetry(policy, { failedAttempts: 9, firstAttemptAt: t0, now: t0, random: () => 1 });
    expect(capped).toMatchObject({ delayMs: 7_200_000 });
  });

  it('ends with a last attempt at the max age, then dead-letters', () => {
    const now = new Date(t0.getTime() + 86_400_000 - 1000);
    expect(nextRetry(policy, { failedAttempts: 15, firstAttemptAt: t0, now, random: () => 0.5 })).toMatchObject({
      kind: 'retry',
      delayMs: 1000,
    });
    expect(nextRetry(policy, { failedAttempts: 16, firstAttemptAt: t0, now: new Date(t0.getTime() + 86_400_000) })).toEqual({
      kind: 'dead_letter',
    });
  });

  it('caps a Retry-After at the longest step: a receiver cannot park the retries for the day', () => {
    expect(
      nextRetry(policy, { failedAttempts: 1, firstAttemptAt: t0, now: t0, retryAfterMs: 36_000_000, random: () => 0.5 }),
    ).toMatchObject({ delayMs: policy.maxStepMs });
    // Nor hurry them: a Retry-After shorter than the backoff step changes nothing.
    expect(
      nextRetry(policy, { failedAttempts: 3, firstAttemptAt: t0, now: t0, retryAfterMs: 1, random: () => 0.5 }),
    ).toMatchObject({
      delayMs: nominalDelayMs(policy, 3),
    });
  });

  it('waits at least a Retry-After, still within the max age', () => {
    expect(
      nextRetry(policy, { failedAttempts: 1, firstAttemptAt: t0, now: t0, retryAfterMs: 60_000, random: () => 0.5 }),
    ).toMatchObject({ delayMs: 60_000 });
    const late = new Date(t0.getTime() + 86_400_000 - 10_000);
    expect(nextRetry(policy, { failedAttempts: 3, firstAttemptAt: t0, now: late, retryAfterMs: 3_600_000 })).toMatchObject({
      delayMs: 10_000,
    });
  });
});
