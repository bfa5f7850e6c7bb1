import { describe, expect, it } from 'vitest';
import { createBatchLoop } from './batch-loop.ts';

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('createBatchLoop', () => {
  it('runs again at once while batches are full, and waits idleMs (or a wake) when not', async () => {
    const sizes = [10, 10, 3];
    let calls = 0;
    const loop = createBatchLoop({
      step: async () => sizes[calls++] ?? 0,
      batchSize: 10,
      idleMs: 60_000,
      backoff: { initialMs: 1, maxMs: 1 },
      onError: () => {},
    });
    loop.start();
    await until(() => calls === 3); // two full batches, then a short one
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(3); // now idle for a minute...
    loop.wake();
    await until(() => calls === 4); // ...unless woken
    await loop.stop();
  });

  it('backs off while the step fails, tells onError the failures in a row, and resets after a success', async () => {
    const heard: number[] = [];
    let calls = 0;
    const loop = createBatchLoop({
      step: async () => {
        calls++;
        if (calls <= 3 || calls === 5) throw new Error('broker down');
        return 0;
      },
      batchSize: 10,
      idleMs: 1,
      backoff: { initialMs: 1, maxMs: 4 },
      onError: (_err, n) => {
        heard.push(n);
      },
    });
    loop.start();
    await until(() => heard.length === 4);
    await loop.stop();
    expect(heard).toEqual([1, 2, 3, 1]);
  });

  it('stop ends an idle wait at once and resolves after the batch in flight', async () => {
    let finished = false;
    const loop = createBatchLoop({
      step: async () => {
        await new Promise((r) => setTimeout(r, 30));
        finished = true;
        return 0;
      },
      batchSize: 10,
      idleMs: 60_000,
      backoff: { initialMs: 1, maxMs: 1 },
      onError: () => {},
    });
    loop.start();
    const started = Date.now();
    await loop.stop();
    expect(finished).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('lingerMs spaces batches that are not full: wake-ups within it share the next batch, full batches do not wait', async () => {
    const began: number[] = [];
    let full = 2;
    const loop = createBatchLoop({
      step: async () => {
        began.push(performance.now());
        return full-- > 0 ? 10 : 1;
      },
      batchSize: 10,
      idleMs: 60_000,
      lingerMs: 150,
      backoff: { initialMs: 1, maxMs: 1 },
      onError: () => {},
    });
    loop.start();
    await until(() => began.length === 3); // two full batches back to back, then a short one
    expect(began[1] - began[0]).toBeLessThan(100);
    expect(began[2] - began[1]).toBeLessThan(100);
    // Wake-ups right after the short batch: one more batch, not before 150 ms after the last began.
    for (let i = 0; i < 5; i++) loop.wake();
    await until(() => began.length === 4);
    expect(began[3] - began[2]).toBeGreaterThanOrEqual(145);
    await new Promise((r) => setTimeout(r, 200));
    expect(began.length).toBe(4); // the five wake-ups made one batch
    // After a quiet spell longer than the linger, a wake-up goes at once.
    const woke = performance.now();
    loop.wake();
    await until(() => began.length === 5);
    expect(began[4] - woke).toBeLessThan(100);
    await loop.stop();
  });
});
