import { describe, expect, it } from 'vitest';
import { reasonOf } from '@cluster/platform/test-kit';
import { DomainError } from '@cluster/platform';
import type { GatewayContext } from './context.ts';
import { createFailureLimit } from './failure-limit.ts';
import { createMemoryRateLimiter } from './rate-limit.ts';

const from = (ip: string) => ({ ip }) as GatewayContext;
const refuse = async (): Promise<never> => {
  throw new DomainError('invalid_key', 'API key not recognised');
};

/** A check that runs until `pass()` or `fail()` is called. */
function pendingCheck() {
  let settle!: (ok: boolean) => void;
  const done = new Promise<boolean>((resolve) => (settle = resolve));
  let started = false;
  return {
    run: async () => {
      started = true;
      if (!(await done)) await refuse();
      return 'ok';
    },
    get started() {
      return started;
    },
    pass: () => settle(true),
    fail: () => settle(false),
  };
}

describe('failure limit', () => {
  it('runs the checks of over-limit addresses in a few slots, queued in order, and refuses beyond the queue', async () => {
    const outcomes: string[] = [];
    const limit = createFailureLimit({
      failures: createMemoryRateLimiter(1),
      checks: 1,
      waiting: 1,
      onOverLimit: (o) => outcomes.push(o),
    });
    expect(await reasonOf(limit(from('a'), { wellFormed: true }, refuse))).toBe('invalid_key');
    const checks = [pendingCheck(), pendingCheck(), pendingCheck(), pendingCheck()];
    const answers = checks.slice(0, 3).map((c, i) => limit(from(i ? 'a' : 'b'), { id: `k${i}`, wellFormed: true }, c.run));
    await new Promise((resolve) => setImmediate(resolve));
    // 'b' is under its limit: no slot. 'a' is over: one slot, so its second check waits, and a third is refused.
    expect(checks.map((c) => c.started)).toEqual([true, true, false, false]);
    expect(await reasonOf(limit(from('a'), { id: 'k3', wellFormed: true }, checks[3].run))).toBe('rate_limit');
    expect(checks[3].started).toBe(false);
    checks[1].fail(); // refused: 429 for an over-limit address, and its slot goes to the next in line
    expect(await reasonOf(answers[1])).toBe('rate_limit');
    expect(checks[2].started).toBe(true);
    checks[2].pass();
    checks[0].pass();
    expect(await Promise.all([answers[0], answers[2]])).toEqual(['ok', 'ok']);
    expect(outcomes).toEqual(['refused_busy', 'refused_checked', 'passed']);
    await reasonOf(limit(from('a'), { wellFormed: false }, refuse));
    expect(outcomes.at(-1)).toBe('refused_unchecked');
  });

  it('remembers refused proofs for a minute, the most recent ones first', async () => {
    let now = 0;
    const limit = createFailureLimit({ failures: createMemoryRateLimiter(1), remembered: 2, clock: () => now });
    const checked: string[] = [];
    const attempt = (id: string) => limit(from('a'), { id, wellFormed: true }, () => (checked.push(id), refuse()));
    for (const id of ['x', 'y', 'z']) await reasonOf(attempt(id));
    await reasonOf(attempt('z')); // remembered: no check
    await reasonOf(attempt('x')); // forgotten for newer ones: checked again
    expect(checked).toEqual(['x', 'y', 'z', 'x']);
    now += 60_001;
    await reasonOf(attempt('z'));
    expect(checked).toEqual(['x', 'y', 'z', 'x', 'z']);
  });
});
