import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import { createFakeStores } from '../../fake-stores.ts';
import type { SendResult } from '../../sender/http-sender.ts';
import { ORG, testSubscription } from '../../shared/test-fixtures.ts';
import { createAttemptRecorder } from './recorder.ts';
import { decideNextStep, outcomeOf } from './service.ts';

const policy = { baseMs: 5000, maxAgeMs: 86_400_000, maxStepMs: 7_200_000 };
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const failed = (over: Partial<SendResult> = {}): SendResult => ({
  ok: false,
  responseCode: 500,
  responseBody: 'oops',
  error: 'HTTP 500',
  durationMs: 3,
  ...over,
});
const ok: SendResult = { ok: true, responseCode: 200, responseBody: 'ok', error: null, durationMs: 2 };
const half = () => 0.5;

describe('the step after an attempt', () => {
  it('succeeds on a 2xx, whatever came before', () => {
    expect(decideNextStep(policy, { attempts: 7, firstAttemptAt: t0 }, ok, at(90_000_000), at(90_000_000))).toEqual({
      kind: 'succeeded',
    });
    expect(outcomeOf({ kind: 'succeeded' })).toBe('succeeded');
  });

  it('retries a failure on the schedule, counted from the first attempt (this one, for a first failure)', () => {
    const first = decideNextStep(policy, { attempts: 0, firstAttemptAt: null }, failed(), t0, t0, half);
    expect(first).toEqual({ kind: 'retry', at: at(5000) });
    const third = decideNextStep(policy, { attempts: 2, firstAttemptAt: t0 }, failed(), at(30_000), at(30_000), half);
    expect(third).toEqual({ kind: 'retry', at: at(30_000 + 80_000) });
    expect(outcomeOf(third)).toBe('failed');
  });

  it('waits what a 429/503 with Retry-After asks for: a pause, not a failure', () => {
    const busy = decideNextStep(
      policy,
      { attempts: 0, firstAttemptAt: null },
      failed({ responseCode: 429, retryAfterMs: 60_000 }),
      t0,
      t0,
      half,
    );
    expect(busy).toEqual({ kind: 'paused', at: at(60_000), until: at(60_000) });
  });

  it('ends at a 410 Gone, first attempt or not, without a retry (the subscription is disabled)', () => {
    for (const attempts of [0, 5]) {
      const gone = decideNextStep(policy, { attempts, firstAttemptAt: t0 }, failed({ responseCode: 410 }), t0, t0);
      expect(gone).toEqual({ kind: 'gone' });
      expect(outcomeOf(gone)).toBe('failed');
    }
    expect(decideNextStep(policy, { attempts: 0, firstAttemptAt: null }, failed({ responseCode: 404 }), t0, t0, half).kind).toBe(
      'retry',
    );
  });

  it('makes a last attempt at the max age after the first one, then dead-letters', () => {
    const late = at(policy.maxAgeMs - 1000);
    expect(decideNextStep(policy, { attempts: 14, firstAttemptAt: t0 }, failed(), late, late, half)).toEqual({
      kind: 'retry',
      at: at(policy.maxAgeMs),
    });
    const deadline = at(policy.maxAgeMs);
    const dead = decideNextStep(policy, { attempts: 15, firstAttemptAt: t0 }, failed(), deadline, deadline);
    expect(dead).toEqual({ kind: 'dead_letter' });
    expect(outcomeOf(dead)).toBe('dead_letter');
  });
});

describe('recording a dead letter (fake stores)', () => {
  it('writes the attempt, ends the schedule and queues the message for the dead-letter topic, only under the lease', async () => {
    const stores = createFakeStores();
    const now = new Date();
    const sub = testSubscription();
    stores.subscriptions.rows.push(sub);
    const envelope = { id: randomUUID(), eventName: 'entry.created', payload: { title: 'x' } };
    await stores.deliveryQueue.insertMany([
      {
        id: envelope.id,
        organizationId: ORG,
        subscriptionId: sub.id,
        eventId: randomUUID(),
        eventName: 'entry.created',
        body: JSON.stringify(envelope),
      },
    ]);
    const {
      deliveries: [claimed],
    } = await stores.deliveryQueue.claim({ limit: 1, leaseMs: 60_000, defaultCap: 3, caps: new Map() });
    const recorder = createAttemptRecorder(stores.attempts);
    const firstAttemptAt = new Date(now.getTime() - policy.maxAgeMs);
    const delivery = { ...claimed, attempts: 15, firstAttemptAt };

    // Another replica took the delivery over: nothing is recorded, nothing dead-lettered.
    expect(
      await recorder.record({
        delivery: { ...delivery, leaseToken: randomUUID() },
        result: failed(),
        attemptedAt: now,
        decision: { kind: 'dead_letter' },
      }),
    ).toBe(false);
    expect(stores.attempts.deadLetters).toEqual([]);

    expect(await recorder.record({ delivery, result: failed(), attemptedAt: now, decision: { kind: 'dead_letter' } })).toBe(true);
    expect(stores.deliveryQueue.rows[0]).toMatchObject({
      status: 'dead_letter',
      attempts: 16,
      nextAttemptAt: null,
      leaseToken: null,
    });
    expect(stores.attempts.deadLetters).toEqual([
      {
        id: claimed.id,
        deliveryId: claimed.id,
        eventName: 'entry.created',
        subscriptionId: sub.id,
        organizationId: ORG,
        destinationUrl: 'https://r.example.com/in',
        attempts: 16,
        firstAttemptAt: firstAttemptAt.toISOString(),
        deadLetteredAt: match.any(String),
        lastError: { error: 'HTTP 500', responseCode: 500, responseBody: 'oops' },
        envelope,
      },
    ]);
    expect(await stores.attempts.listFor(claimed.id)).toEqual([match.objectContaining({ attempt: 16, outcome: 'failed' })]);
  });
});

describe('a receiver that asks for a pause (docs/webhooks.md, "Throttling")', () => {
  const throttled = (retryAfterMs: number | undefined, responseCode = 429) =>
    failed({ responseCode, error: `HTTP ${responseCode}`, retryAfterMs });

  it('pauses for its Retry-After on a 429 or 503, within 1 s and maxPauseMs, as no backoff step', () => {
    const d = { attempts: 3, firstAttemptAt: t0, throttledAttempts: 1 };
    expect(decideNextStep(policy, d, throttled(2000), at(1000), at(1000))).toEqual({
      kind: 'paused',
      until: at(3000),
      at: at(3000),
    });
    expect(decideNextStep(policy, d, throttled(2000, 503), at(1000), at(1000))).toMatchObject({ kind: 'paused' });
    // Retry-After: 0 would make a loop: at least a second.
    expect(decideNextStep(policy, d, throttled(0), at(0), at(0))).toMatchObject({ until: at(1000) });
    // A day's pause is cut to the cap (1 h by default, maxPauseMs when set).
    expect(decideNextStep(policy, d, throttled(86_400_000), at(0), at(0))).toMatchObject({ until: at(3_600_000) });
    expect(decideNextStep({ ...policy, maxPauseMs: 60_000 }, d, throttled(86_400_000), at(0), at(0))).toMatchObject({
      until: at(60_000),
    });
  });

  it('tries the delivery again at the retry deadline at the latest, and dead-letters a pause past it', () => {
    const d = { attempts: 9, firstAttemptAt: t0, throttledAttempts: 0 };
    const late = at(policy.maxAgeMs - 1000);
    expect(decideNextStep(policy, d, throttled(60_000), late, late)).toEqual({
      kind: 'paused',
      until: at(policy.maxAgeMs + 59_000),
      at: at(policy.maxAgeMs),
    });
    const past = at(policy.maxAgeMs);
    expect(decideNextStep(policy, d, throttled(60_000), past, past)).toEqual({ kind: 'dead_letter' });
  });

  it('is an ordinary failure without a Retry-After, or on another status', () => {
    const d = { attempts: 0, firstAttemptAt: null, throttledAttempts: 0 };
    expect(decideNextStep(policy, d, throttled(undefined), at(0), at(0), half).kind).toBe('retry');
    expect(decideNextStep(policy, d, failed({ retryAfterMs: 5000 }), at(0), at(0), half).kind).toBe('retry');
  });

  it('does not let throttled attempts advance the backoff: the next failure waits the step of the failures alone', () => {
    const afterPauses = decideNextStep(
      policy,
      { attempts: 5, firstAttemptAt: t0, throttledAttempts: 5 },
      failed(),
      at(0),
      at(0),
      half,
    );
    const first = decideNextStep(policy, { attempts: 0, firstAttemptAt: t0, throttledAttempts: 0 }, failed(), at(0), at(0), half);
    expect(afterPauses).toEqual(first);
    expect(first).toEqual({ kind: 'retry', at: at(policy.baseMs) });
  });
});
