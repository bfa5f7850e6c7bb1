import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, createMetrics } from '@cluster/platform';
import { createLimiters, type Limiters } from './limiters.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A port nothing listens on (connections refused): Redis down. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Limiters on `redisUrl`, with the log lines and metrics they write. */
function limitersOn(redisUrl: string | undefined) {
  const lines: { level: string; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as { level: string; msg: string });
      done();
    },
  });
  const metrics = createMetrics('gateway');
  const limiters = createLimiters({ redisUrl, logger: createLogger('gateway', 'info', sink), metrics });
  opened.push(limiters);
  const metric = async (name: string) => (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
  return { limiters, lines, metric };
}

const opened: Limiters[] = [];
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});

describe('rate limiters (Redis, with a per-replica fallback)', () => {
  it('hold one limit across replicas sharing Redis', async () => {
    const [a, b] = [limitersOn(REDIS_URL), limitersOn(REDIS_URL)];
    await Promise.all([a.limiters.connected(), b.limiters.connected()]);
    const [la, lb] = [a.limiters.limiter('requests', 5), b.limiters.limiter('requests', 5)];
    const key = `test-${randomUUID()}`;
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await (i % 2 ? la : lb).hit(key));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(results[4].remaining).toBe(0);
    expect(results[5].retryAfter).toBeGreaterThan(0);
    expect(await a.metric('gateway_rate_limit_degraded')).toMatchObject([{ value: 0 }]);
  });

  it('decide in memory, with the same limit, when Redis refuses connections: at once, one warning, counted', async () => {
    const { limiters, lines, metric } = limitersOn(`redis://127.0.0.1:${await closedPort()}`);
    const limiter = limiters.limiter('requests', 3);
    const started = performance.now();
    const allowed = [];
    for (let i = 0; i < 4; i++) allowed.push((await limiter.hit('k')).allowed);
    expect(performance.now() - started).toBeLessThan(500);
    expect(allowed).toEqual([true, true, true, false]);
    expect((await limiter.peek('k')).allowed).toBe(false);
    expect(await metric('gateway_rate_limit_degraded')).toMatchObject([{ value: 1 }]);
    expect(await metric('gateway_rate_limit_fallback_decisions_total')).toMatchObject([
      { labels: { limiter: 'requests' }, value: 5 },
    ]);
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'Redis does not answer: rate limits are per gateway replica until it does',
    ]);
  });

  it('are per replica by configuration without REDIS_URL: not degraded', async () => {
    const { limiters, metric } = limitersOn(undefined);
    const limiter = limiters.limiter('requests', 1);
    expect((await limiter.hit('k')).allowed).toBe(true);
    expect((await limiter.hit('k')).allowed).toBe(false);
    expect(await metric('gateway_rate_limit_degraded')).toMatchObject([{ value: 0 }]);
  });
});
