import { describe, expect, it } from 'vitest';
import { createMemoryReplayGuard } from './index.ts';

describe('createMemoryReplayGuard', () => {
  it('remembers ids for ttlSeconds (25 hours by default), then forgets them', () => {
    let now = 0;
    const guard = createMemoryReplayGuard({ now: () => now });
    expect(guard.has('a')).toBe(false);
    guard.remember('a');
    expect(guard.has('a')).toBe(true);
    now = 25 * 3600 * 1000 - 1;
    expect(guard.has('a')).toBe(true);
    now = 25 * 3600 * 1000;
    expect(guard.has('a')).toBe(false);
    expect(guard.size()).toBe(0);
  });

  it('keeps at most maxEntries, forgetting the oldest first', () => {
    let now = 0;
    const guard = createMemoryReplayGuard({ ttlSeconds: 60, maxEntries: 3, now: () => now });
    for (const id of ['a', 'b', 'c', 'd']) {
      now += 1;
      guard.remember(id);
    }
    expect(guard.size()).toBe(3);
    expect(guard.has('a')).toBe(false);
    expect(guard.has('d')).toBe(true);
    // Remembering again moves an id to the back, with a fresh ttl.
    guard.remember('b');
    guard.remember('e');
    expect(['b', 'c', 'd', 'e'].map((id) => guard.has(id))).toEqual([true, false, true, true]);
  });
});
