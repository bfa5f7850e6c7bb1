import { describe, expect, it } from 'vitest';
import { chunksBySize } from './publisher.ts';

const msg = (n: number, bytes: number) => ({ key: `k${n}`, value: 'x'.repeat(bytes), headers: {} });

describe('chunksBySize', () => {
  it('keeps the order and splits runs at the byte limit', () => {
    const chunks = chunksBySize([msg(1, 400), msg(2, 400), msg(3, 400)], 1000);
    expect(chunks.map((c) => c.map((m) => m.key))).toEqual([['k1', 'k2'], ['k3']]);
  });

  it('puts a message larger than the limit in a run of its own', () => {
    const chunks = chunksBySize([msg(1, 10), msg(2, 5000), msg(3, 10)], 1000);
    expect(chunks.map((c) => c.map((m) => m.key))).toEqual([['k1'], ['k2'], ['k3']]);
  });
});
