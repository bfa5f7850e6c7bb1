import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, startTestCluster, type TestCluster } from './support/cluster.ts';

let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
});
afterAll(async () => c?.stop());

const ready = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: await res.json() };
};

describe('readiness tells the truth', () => {
  it('is ready with every dependency up, and not ready once Postgres is unreachable', async () => {
    const core = await ready(c.ports.core);
    expect(core).toMatchObject({ status: 200, body: { ready: true, checks: { postgres: true, kafka: true } } });
    // (This cluster runs without the delivery service, so the gateway is judged on core alone.)
    expect((await ready(c.ports.gateway)).body.checks.core).toBe(true);

    // The core's database disappears (connections killed): its dependency is gone.
    await dropDatabase(c.databaseUrl);
    const after = await ready(c.ports.core);
    expect(after.status).toBe(503);
    expect(after.body.checks).toMatchObject({ postgres: false, kafka: true });
    const gateway = await ready(c.ports.gateway);
    expect(gateway.status).toBe(503);
    expect(gateway.body.checks.core).toBe(false);
    // Liveness is not readiness: the process is still alive.
    expect((await fetch(`http://127.0.0.1:${c.ports.core}/healthz`)).status).toBe(200);
  });
});
