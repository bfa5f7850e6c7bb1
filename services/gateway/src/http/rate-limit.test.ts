import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from './rate-limit.ts';

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
});
