import { describe, expect, it } from 'vitest';
import { planLeases, type LeaseState } from './leases.ts';

const free = (slot: number): LeaseState => ({ slot, holder: null, takenByOther: false });
const of = (slot: number, holder: string, takenByOther = holder !== 'a'): LeaseState => ({ slot, holder, takenByOther });

describe('planLeases', () => {
  it('takes every slot when alone', () => {
    expect(planLeases({ me: 'a', slots: 4, liveRelays: [], leases: [0, 1, 2, 3].map(free) })).toEqual({
      claim: [0, 1, 2, 3],
      release: [],
    });
  });

  it('takes a fair share, starting at its rank, and leaves slots other live relays hold', () => {
    const plan = planLeases({ me: 'b', slots: 4, liveRelays: ['a', 'b'], leases: [of(0, 'a'), of(1, 'a'), free(2), free(3)] });
    expect(plan).toEqual({ claim: [2, 3], release: [] });
  });

  it('gives back what is past its share when another relay joins', () => {
    const plan = planLeases({ me: 'a', slots: 2, liveRelays: ['a', 'b'], leases: [of(0, 'a'), of(1, 'a')] });
    expect(plan).toEqual({ claim: [0], release: [1] });
  });

  it("claims a dead relay's slots (not held by a live one) and the slots past its own count that have rows", () => {
    const plan = planLeases({
      me: 'a',
      slots: 3,
      liveRelays: ['a'],
      leases: [of(0, 'a'), of(1, 'gone', false), free(2)],
    });
    expect(plan).toEqual({ claim: [0, 1, 2], release: [] });
  });
});
