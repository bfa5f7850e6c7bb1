import { Counter, Histogram } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { recordAttemptOutcome, type AttemptOutcomePorts } from './outcome.ts';
import type { AttemptDecision, AttemptRecord } from './store.ts';

// What every sender of an attempt (the delivery loop, a redelivery, a test call) gets from the one
// recording of its outcome; the write itself is a stand-in (the stores' contract tests and
// test/webhooks*.test.ts record attempts in a real Postgres).
function setup(opts: { kept?: boolean; goneFails?: boolean } = {}) {
  const written: AttemptRecord[] = [];
  const gone: string[] = [];
  const logged: string[] = [];
  const metrics = {
    deliveries: new Counter({ name: 'unit_deliveries', help: 'u', labelNames: ['outcome'] as const, registers: [] }),
    attemptDuration: new Histogram({ name: 'unit_duration', help: 'u', labelNames: ['outcome'] as const, registers: [] }),
    deadLetters: new Counter({ name: 'unit_dead_letters', help: 'u', registers: [] }),
  };
  const ports: AttemptOutcomePorts = {
    record: async (item) => {
      written.push(item);
      return opts.kept ?? true;
    },
    metrics,
    onGone: async (id) => {
      if (opts.goneFails) throw new Error('database down');
      gone.push(id);
      return true;
    },
    // pino's call shape (fields, message): the message is what the test reads.
    logger: {
      warn: (...args: unknown[]) => void logged.push(String(args[1])),
      error: (...args: unknown[]) => void logged.push(String(args[1])),
    },
  };
  const counted = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const v of (await metrics.deliveries.get()).values) out[String(v.labels.outcome)] = v.value;
    return out;
  };
  return { ports, written, gone, logged, metrics, counted };
}

const attempt = (decision: AttemptDecision, ok = false): AttemptRecord => ({
  delivery: {
    id: 'd1',
    createdAt: new Date(0),
    leaseToken: 't',
    attempts: 2,
    firstAttemptAt: null,
    subscriptionId: 's1',
    organizationId: 'o',
    eventName: 'entry.created',
    body: '{}',
    destinationUrl: 'http://r',
  },
  result: { ok, responseCode: ok ? 200 : 410, responseBody: null, error: ok ? null : 'gone', durationMs: 30 },
  attemptedAt: new Date(),
  decision,
});

describe('recordAttemptOutcome', () => {
  it('records the attempt, then counts its outcome and observes its duration', async () => {
    const t = setup();
    expect(await recordAttemptOutcome(t.ports, attempt({ kind: 'succeeded' }, true))).toBe(true);
    expect(t.written.map((w) => w.decision.kind)).toEqual(['succeeded']);
    expect(await t.counted()).toEqual({ succeeded: 1 });
    const durations = (await t.metrics.attemptDuration.get()).values.find((v) => v.metricName === 'unit_duration_count');
    expect(durations).toMatchObject({ labels: { outcome: 'succeeded' }, value: 1 });
  });

  it('does nothing more when the lease was lost: another replica owns the delivery', async () => {
    const t = setup({ kept: false });
    expect(await recordAttemptOutcome(t.ports, attempt({ kind: 'gone' }))).toBe(false);
    expect(await t.counted()).toEqual({});
    expect(t.gone).toEqual([]);
    expect(t.logged).toEqual(['lease lost before the attempt was recorded; another replica owns the delivery']);
  });

  it('disables the subscription of a 410 Gone once the attempt is recorded', async () => {
    const t = setup();
    await recordAttemptOutcome(t.ports, attempt({ kind: 'gone' }));
    expect(t.gone).toEqual(['s1']);
    expect(await t.counted()).toEqual({ failed: 1 });
    expect(t.logged).toEqual(['endpoint answered 410 Gone: subscription disabled']);
  });

  it('logs, not throws, a disabling that failed: the attempt is recorded and the next 410 disables', async () => {
    const t = setup({ goneFails: true });
    expect(await recordAttemptOutcome(t.ports, attempt({ kind: 'gone' }))).toBe(true);
    expect(t.logged).toEqual(['could not disable a subscription after 410 Gone']);
  });

  it('counts a dead letter apart', async () => {
    const t = setup();
    await recordAttemptOutcome(t.ports, attempt({ kind: 'dead_letter' }));
    expect(await t.counted()).toEqual({ dead_letter: 1 });
    expect((await t.metrics.deadLetters.get()).values[0]?.value).toBe(1);
    expect(t.logged).toEqual(['delivery dead-lettered']);
  });

  it('rejects when the write failed, counting nothing', async () => {
    const t = setup();
    t.ports.record = () => Promise.reject(new Error('statement timeout'));
    await expect(recordAttemptOutcome(t.ports, attempt({ kind: 'succeeded' }, true))).rejects.toThrow('statement timeout');
    expect(await t.counted()).toEqual({});
  });
});
