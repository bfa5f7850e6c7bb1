import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createConsumerLag } from './consumer-lag.ts';

/** The gauge's series as partition -> value. */
async function series(gauge: Gauge<'partition'>): Promise<Record<string, number>> {
  return Object.fromEntries((await gauge.get()).values.map((v) => [String(v.labels.partition), v.value]));
}

describe('consumer lag across rebalances', () => {
  it('drops the partitions a rebalance took away, keeps the ones still owned', async () => {
    const gauge = new Gauge({ name: 'lag', help: 'lag', labelNames: ['partition'] as const, registers: [new Registry()] });
    const lag = createConsumerLag(gauge);
    lag.set(0, 10);
    lag.set(1, 20);
    lag.set(2, 30);
    lag.assigned([1, 2, 5]);
    expect(await series(gauge)).toEqual({ '1': 20, '2': 30 });
    // A partition given back later reports again from its next batch.
    lag.set(0, 4);
    expect(await series(gauge)).toEqual({ '0': 4, '1': 20, '2': 30 });
    // No partition of the topic at all (more replicas than partitions): nothing left.
    lag.assigned(undefined);
    expect(await series(gauge)).toEqual({});
  });
});
