import { describe, expect, it } from 'vitest';
import { createWaker } from './waker.ts';

const timed = async (p: Promise<void>) => {
  const started = performance.now();
  await p;
  return performance.now() - started;
};

describe('createWaker', () => {
  it('sleeps the time asked when nothing happens', async () => {
    expect(await timed(createWaker().sleep(60))).toBeGreaterThanOrEqual(50);
  });

  it('ends a sleep early on wake()', async () => {
    const waker = createWaker();
    setTimeout(() => waker.wake(), 10);
    expect(await timed(waker.sleep(5000))).toBeLessThan(1000);
  });

  it('keeps a wake() that came while busy for the next sleep, until clear()', async () => {
    const waker = createWaker();
    waker.wake();
    expect(await timed(waker.sleep(5000))).toBeLessThan(1000);
    waker.clear();
    expect(await timed(waker.sleep(60))).toBeGreaterThanOrEqual(50);
  });

  it('ends the current sleep on stop(), and every later one returns at once', async () => {
    const waker = createWaker();
    setTimeout(() => waker.stop(), 10);
    expect(await timed(waker.sleep(5000))).toBeLessThan(1000);
    waker.clear();
    expect(await timed(waker.sleep(5000))).toBeLessThan(1000);
  });
});
