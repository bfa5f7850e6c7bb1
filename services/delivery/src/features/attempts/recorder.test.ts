import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAttemptRecorder } from './recorder.ts';
import type { AttemptRecord, AttemptStore } from './store.ts';

// The batching logic alone: the store is a stand-in whose writes finish when the test
// says so (test/webhooks*.test.ts record attempts in a real Postgres).
function fakeStore() {
  const calls: { ids: string[]; finish: () => void }[] = [];
  const store: Pick<AttemptStore, 'recordAttempt' | 'recordAttempts'> = {
    recordAttempts: (items: AttemptRecord[]) =>
      new Promise<Set<string>>((resolve) => {
        const ids = items.map((i) => i.delivery.id);
        calls.push({ ids, finish: () => resolve(new Set(ids)) });
      }),
    // Dead letters only (service.test.ts covers them); none here.
    recordAttempt: (item: AttemptRecord) => Promise.reject(new Error(`unexpected single-row record of ${item.delivery.id}`)),
  };
  return { store, calls };
}

const attempt = (id: string): AttemptRecord => ({
  delivery: {
    id,
    createdAt: new Date(0),
    leaseToken: 't',
    attempts: 0,
    firstAttemptAt: null,
    subscriptionId: 's',
    organizationId: 'o',
    eventName: 'entry.created',
    body: '{}',
    destinationUrl: 'http://r',
  },
  result: { ok: true, responseCode: 200, responseBody: 'ok', error: null, durationMs: 1 },
  attemptedAt: new Date(),
  decision: { kind: 'succeeded' },
});

const tick = () => new Promise<void>((r) => queueMicrotask(r));

afterEach(() => {
  vi.useRealTimers();
});

describe('attempt recorder', () => {
  it('writes a lone attempt at once, queues behind a write in flight, and lingers only under load', async () => {
    vi.useFakeTimers();
    const { store, calls } = fakeStore();
    const recorder = createAttemptRecorder(store, 200, 5);

    const a = recorder.record(attempt('a'));
    await tick();
    expect(calls.map((c) => c.ids)).toEqual([['a']]);

    // While "a" is being written, two more finish: they go together, at once (the last batch was one).
    const b = recorder.record(attempt('b'));
    const c = recorder.record(attempt('c'));
    calls[0].finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(await a).toBe(true);
    expect(calls.map((x) => x.ids)).toEqual([['a'], ['b', 'c']]);

    // That batch held two: the next one lingers 5 ms and takes what arrives meanwhile.
    const d = recorder.record(attempt('d'));
    calls[1].finish();
    await vi.advanceTimersByTimeAsync(2);
    expect(calls).toHaveLength(2);
    const e = recorder.record(attempt('e'));
    await vi.advanceTimersByTimeAsync(3);
    expect(calls.map((x) => x.ids)).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
    calls[2].finish();
    expect(await Promise.all([b, c, d, e])).toEqual([true, true, true, true]);

    // Quiet again (the last batch held two, so one more linger), then a lone attempt is written at once.
    await vi.advanceTimersByTimeAsync(10);
    void recorder.record(attempt('f'));
    await vi.advanceTimersByTimeAsync(5);
    calls[3].finish();
    await vi.advanceTimersByTimeAsync(0);
    void recorder.record(attempt('g'));
    await tick();
    expect(calls.map((x) => x.ids)).toEqual([['a'], ['b', 'c'], ['d', 'e'], ['f'], ['g']]);
  });
});
