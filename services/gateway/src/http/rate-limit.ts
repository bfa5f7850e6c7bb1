import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DomainError } from '@cluster/platform';
import type { GatewayContext } from './context.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds when the window frees a slot. */
  reset: number;
  /** Seconds to wait when refused. */
  retryAfter: number;
}

export interface RateLimiter {
  /** Counts one request against `key` when the window has room. */
  hit(key: string): Promise<RateDecision>;
  /** The decision a hit would get now, counting nothing. */
  peek(key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

function decide(limit: number, count: number, oldest: number | undefined, allowed: boolean, now: number): RateDecision {
  const resetMs = (oldest ?? now) + WINDOW_MS;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.ceil(resetMs / 1000),
    retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
  };
}

/**
 * Sliding-window log in process memory: exact, for a single gateway replica.
 * (rate-limiter-flexible offers fixed windows only; the spec asks for a sliding window.)
 */
export function createMemoryRateLimiter(limit: number, clock: () => number = Date.now): RateLimiter {
  const windows = new Map<string, number[]>();
  const sweep = setInterval(() => {
    const cutoff = clock() - WINDOW_MS;
    for (const [k, w] of windows) if (!w.length || w[w.length - 1] <= cutoff) windows.delete(k);
  }, WINDOW_MS);
  sweep.unref();
  const current = (key: string, now: number) => {
    const w = windows.get(key) ?? [];
    while (w.length && w[0] <= now - WINDOW_MS) w.shift();
    return w;
  };
  return {
    async hit(key) {
      const now = clock();
      const w = current(key, now);
      const allowed = w.length < limit;
      if (allowed) w.push(now);
      windows.set(key, w);
      return decide(limit, w.length, w[0], allowed, now);
    },
    async peek(key) {
      const now = clock();
      const w = current(key, now);
      return decide(limit, w.length, w[0], w.length < limit, now);
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

// One atomic step of the sliding-window log in a sorted set.
const SCRIPT = `
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, member)
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or now}
`;

// The count a hit would see, adding nothing.
const PEEK_SCRIPT = `
local key, now, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {redis.call('ZCARD', key), oldest[2] or now}
`;

/**
 * The same sliding window in Redis, shared by every gateway replica (REDIS_URL). A Redis error or
 * timeout rejects: `createLimiters` (limiters.ts) owns the connection and falls back to memory.
 */
export function createRedisRateLimiter(redis: Redis, limit: number): Omit<RateLimiter, 'close'> {
  return {
    async peek(key) {
      const now = Date.now();
      const [count, oldest] = (await redis.eval(PEEK_SCRIPT, 1, `ratelimit:${key}`, now, WINDOW_MS)) as [number, string];
      return decide(limit, count, Number(oldest), count < limit, now);
    },
    async hit(key) {
      const now = Date.now();
      // Unique per hit: replicas (often all pid 1 in containers) must never collide.
      const member = `${now}-${randomUUID()}`;
      const [allowed, count, oldest] = (await redis.eval(SCRIPT, 1, `ratelimit:${key}`, now, WINDOW_MS, limit, member)) as [
        number,
        number,
        string,
      ];
      return decide(limit, count, Number(oldest), allowed === 1, now);
    },
  };
}

/**
 * Pipeline step 3: counts the request against its API key. Always answers the
 * X-RateLimit-Limit/-Remaining/-Reset headers; over the limit, 429 rate_limit with Retry-After.
 */
export async function enforceRateLimit(ctx: GatewayContext, limiter: RateLimiter, apiKeyId: string): Promise<void> {
  const rate = await limiter.hit(apiKeyId);
  ctx.set('X-RateLimit-Limit', String(rate.limit));
  ctx.set('X-RateLimit-Remaining', String(rate.remaining));
  ctx.set('X-RateLimit-Reset', String(rate.reset));
  if (!rate.allowed) {
    ctx.set('Retry-After', String(rate.retryAfter));
    throw new DomainError('rate_limit', 'rate limit exceeded', { retryAfter: rate.retryAfter });
  }
}
