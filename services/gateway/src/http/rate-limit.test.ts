import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createMemoryRateLimiter, createRedisRateLimiter } from './rate-limit.ts';

describe('sliding-window rate limiter', () => {
  it('frees slots one by one as they leave the window (memory)', async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter(3, () => now);
    for (let i = 0; i < 3; i++) {
      expect((await limiter.hit('k')).allowed).toBe(true);
      now += 10_000;
    }
    const refused = await limiter.hit('k');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 30 });
    expect(refused.reset).toBe(Math.ceil((1_000_000 + 60_000) / 1000));
    now = 1_000_000 + 60_001; // the first hit left the window
    expect((await limiter.hit('k')).allowed).toBe(true);
    expect((await limiter.hit('k')).allowed).toBe(false);
    expect((await limiter.hit('other')).allowed).toBe(true);
    await limiter.close();
  });

  it('holds one limit across replicas sharing Redis', async () => {
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const a = createRedisRateLimiter(url, 5);
    const b = createRedisRateLimiter(url, 5);
    const key = `test-${randomUUID()}`;
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await (i % 2 ? a : b).hit(key));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(results[4].remaining).toBe(0);
    expect(results[5].retryAfter).toBeGreaterThan(0);
    await a.close();
    await b.close();
  });
});
