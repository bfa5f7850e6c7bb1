import { describe, expect, it } from 'vitest';
import { addHistogram, bucketPercentiles, DURATION_BOUNDS, durationBucket } from './stats-rollup.ts';

describe('the statistics rollup’s duration buckets', () => {
  it('give every ms below 32 its own bucket, then 16 per octave up to 2^17, each at most 1/16 of its lower bound wide', () => {
    expect(DURATION_BOUNDS).toHaveLength(224);
    expect(DURATION_BOUNDS.slice(0, 33)).toEqual([...Array.from({ length: 32 }, (_, i) => i), 32]);
    for (let i = 1; i < DURATION_BOUNDS.length; i++) {
      expect(DURATION_BOUNDS[i]).toBeGreaterThan(DURATION_BOUNDS[i - 1]);
      if (DURATION_BOUNDS[i - 1] >= 32)
        expect(DURATION_BOUNDS[i] - DURATION_BOUNDS[i - 1]).toBeLessThanOrEqual(DURATION_BOUNDS[i - 1] / 16);
    }
    expect(DURATION_BOUNDS.at(-1)).toBe(126_976);
  });

  it('put a duration in the bucket whose lower bound is the greatest not above it (as width_bucket does)', () => {
    expect(
      [0, 1, 31, 32, 33, 34, 100, 103, 104, 950, 126_975, 126_976, 10_000_000, -5]
        .map(durationBucket)
        .map((i) => DURATION_BOUNDS[i]),
    ).toEqual([0, 1, 31, 32, 32, 34, 100, 100, 104, 928, 122_880, 126_976, 126_976, 0]);
  });

  it('read percentiles as percentile_disc would, rounded down to the bucket; null when empty', () => {
    const counts: number[] = [];
    for (const ms of [40, 10, 30, 20])
      addHistogram(counts, Object.assign(Array(durationBucket(ms) + 1).fill(0), { [durationBucket(ms)]: 1 }));
    expect(bucketPercentiles(counts, [0.5, 0.95, 0.99])).toEqual([20, 40, 40]);
    expect(bucketPercentiles([], [0.5])).toEqual([null]);
    // 99 fast attempts and one slow: p50 the fast one's bucket, p99 still fast, the maximum the slow one's.
    const mixed = addHistogram(
      [],
      Object.assign(Array(durationBucket(5000) + 1).fill(0), { [durationBucket(7)]: 99, [durationBucket(5000)]: 1 }),
    );
    expect(bucketPercentiles(mixed, [0.5, 0.99, 1])).toEqual([7, 7, 4864]);
  });
});
