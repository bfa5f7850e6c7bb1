import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, startTestCluster, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';

// Readiness is local (docs/runbook.md, "Readiness"): a service is ready when it can serve its own
// traffic. The gateway never folds the backends' readiness into its own; a backend is ready with
// Postgres, whatever Kafka does (Kafka down: test/faults/kafka-down.test.ts).

let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
});
afterAll(async () => c?.stop());

const ready = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: await res.json() };
};

const metric = async (port: number, name: string): Promise<string[]> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(name));
};

describe('readiness is local', () => {
  it('shows every dependency, and a backend is ready with Postgres alone', async () => {
    const core = await ready(c.ports.core);
    expect(core).toMatchObject({ status: 200, body: { ready: true, checks: { postgres: true, kafka: true } } });
    expect(await metric(c.ports.core, 'core_dependency_up')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^core_dependency_up\{dependency="postgres",required="true",service="core"\} 1$/),
        expect.stringMatching(/^core_dependency_up\{dependency="kafka",required="false",service="core"\} 1$/),
      ]),
    );
    // This cluster has no delivery service at all: the gateway is ready all the same.
    expect(await ready(c.ports.gateway)).toEqual({ status: 200, body: { ready: true, checks: { accepting: true } } });
  });

  it('makes core unready once Postgres is gone, and the gateway stays ready, answering 503 fast for what needs core', async () => {
    const { key } = await c.seedOrg();
    // The core's database disappears (connections killed): the one dependency it cannot serve without.
    await dropDatabase(c.databaseUrl);
    // Unready at the next probe (a broken connection makes the pool's readiness ask the server again).
    const after = await until(
      () => ready(c.ports.core),
      (r) => r.status === 503,
      5_000,
    );
    expect(after.status).toBe(503);
    expect(after.body.checks).toMatchObject({ postgres: false, kafka: true });
    expect(after.body.ready).toBe(false);
    // Liveness is not readiness: the process is still alive.
    expect((await fetch(`http://127.0.0.1:${c.ports.core}/healthz`)).status).toBe(200);

    expect((await ready(c.ports.gateway)).status).toBe(200);
    expect((await c.api(undefined, 'GET', '/openapi.json')).status).toBe(200);
    const started = Date.now();
    const res = await c.api(key, 'GET', '/projects');
    expect(Date.now() - started).toBeLessThan(8000);
    // The cached key lets the call reach the core, whose database is gone: 503 in the spec's shape, never 500.
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ reason: 'unavailable', message: expect.any(String) });
    expect(res.headers.get('retry-after')).toBe('1');
  });
});
