import { Redis } from 'ioredis';
import { Counter, Gauge } from 'prom-client';
import type { Logger, Metrics } from '@cluster/platform';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateDecision, type RateLimiter } from './rate-limit.ts';

export interface LimitersOptions {
  /** REDIS_URL; unset: every limit is per replica by configuration (not degraded). */
  redisUrl: string | undefined;
  logger: Logger;
  metrics: Metrics;
  /** The longest a request waits for Redis before its limit is decided in memory. */
  timeoutMs?: number;
  /** How often a degraded replica asks Redis whether it is back. */
  probeMs?: number;
}

/**
 * The gateway's rate limiters (per API key, failed authentications per address) on one Redis
 * connection, shared by every replica. Redis is an optimisation of the limits, not a dependency of
 * the API: when a call fails or takes longer than `timeoutMs`, the replica decides in memory with
 * the same limits (per replica, so N replicas allow up to N times the limit) until a background
 * PING answers again. The outage is logged once (a warning, then an info line on recovery) and
 * shown by `gateway_rate_limit_degraded` (1/0) and `gateway_rate_limit_fallback_decisions_total`.
 */
export function createLimiters(opts: LimitersOptions) {
  const { logger, metrics, timeoutMs = 250, probeMs = 1000 } = opts;
  const degradedGauge = new Gauge({
    name: `${metrics.prefix}rate_limit_degraded`,
    help: 'Whether this replica decides rate limits in memory because Redis does not answer (1) or in Redis (0).',
    registers: [metrics.registry],
  });
  const fallbacks = new Counter({
    name: `${metrics.prefix}rate_limit_fallback_decisions_total`,
    help: 'Rate-limit decisions made in memory because Redis did not answer, by limiter.',
    labelNames: ['limiter'] as const,
    registers: [metrics.registry],
  });
  degradedGauge.set(0);
  const created: RateLimiter[] = [];
  const redis = opts.redisUrl ? connect(opts.redisUrl, timeoutMs) : undefined;
  if (!redis) logger.info('REDIS_URL unset: rate limits are per gateway replica');

  let probe: NodeJS.Timeout | undefined;
  const degrade = (err: unknown) => {
    if (probe || !redis) return;
    degradedGauge.set(1);
    logger.warn({ err: (err as Error).message }, 'Redis does not answer: rate limits are per gateway replica until it does');
    probe = setInterval(() => {
      redis.ping().then(recover, () => {}); // still down: ask again next time
    }, probeMs);
    probe.unref();
  };
  const recover = () => {
    if (!probe) return;
    clearInterval(probe);
    probe = undefined;
    degradedGauge.set(0);
    logger.info('Redis answers again: rate limits are shared by the replicas again');
  };

  /** A limiter of `perMinute` per key, named `name` in the fallback counter. */
  function limiter(name: string, perMinute: number): RateLimiter {
    const memory = createMemoryRateLimiter(perMinute);
    created.push(memory);
    if (!redis) return memory;
    const shared = createRedisRateLimiter(redis, perMinute);
    const decide = async (ask: (l: Omit<RateLimiter, 'close'>) => Promise<RateDecision>): Promise<RateDecision> => {
      if (!probe) {
        try {
          return await ask(shared);
        } catch (err) {
          degrade(err);
        }
      }
      fallbacks.inc({ limiter: name });
      return ask(memory);
    };
    return {
      hit: (key) => decide((l) => l.hit(key)),
      peek: (key) => decide((l) => l.peek(key)),
      close: () => memory.close(),
    };
  }

  return {
    limiter,
    /** Waits (at most `ms`) for the first connection, so a replica does not start degraded for want of a moment. */
    async connected(ms = 2000): Promise<void> {
      if (!redis || redis.status === 'ready') return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise((resolve) => redis.once('ready', resolve)),
        new Promise((resolve) => (timer = setTimeout(resolve, ms))),
      ]);
      clearTimeout(timer);
    },
    async close(): Promise<void> {
      if (probe) clearInterval(probe);
      for (const l of created) await l.close();
      redis?.disconnect();
    },
  };
}
export type Limiters = ReturnType<typeof createLimiters>;

/**
 * A connection whose commands fail fast rather than wait: `commandTimeout` bounds a frozen Redis,
 * no offline queue and no retries make a closed one refuse at once; ioredis reconnects in the
 * background (its default backoff, up to 2 s) and the degraded replica's PING notices.
 */
function connect(url: string, timeoutMs: number): Redis {
  const redis = new Redis(url, {
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
  });
  // Connection errors are reported through the commands that fail (one warning per outage);
  // without a listener ioredis would print each reconnection attempt's error to stderr.
  redis.on('error', () => {});
  return redis;
}
