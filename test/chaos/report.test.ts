import { describe, expect, it } from 'vitest';
import { titleOf, type Attempt, type Write } from './load.ts';
import { formatReport, summarise, type SoakRecord } from './report.ts';

// The soak's arithmetic on a made-up record: what counts as lost, as a duplicate, as stored twice,
// and which requests fall in a fault's window. Times are ms from 0.
const T0 = 1_000_000;
const at = (s: number) => T0 + s * 1000;

function write(key: string, s: number, outcome: Write['outcome'] = 'accepted'): Write {
  return { key, startedAt: at(s), endedAt: at(s) + 20, outcome, entryId: outcome === 'accepted' ? `e-${key}` : undefined };
}
function attempt(s: number, status: number, op: Attempt['op'] = 'write'): Attempt {
  return { op, startedAt: at(s), endedAt: at(s) + 20, status };
}

function record(): SoakRecord {
  return {
    settings: {},
    startedAt: T0,
    load: {
      writes: [write('a', 1), write('b', 11), write('c', 21)],
      attempts: [
        attempt(1, 201),
        attempt(10.5, 503),
        attempt(11, 201),
        attempt(12, 200, 'read'),
        attempt(21, 201),
        attempt(22, 0, 'read'),
      ],
      skipped: 0,
    },
    faults: [
      { member: 'postgres', kind: 'freeze', startedAt: at(10), endedAt: at(12), backAt: at(12.5) },
      { member: 'core-1', kind: 'kill', startedAt: at(20), endedAt: at(20.1), backAt: at(20.9) },
    ],
    // b is stored twice (its retry wrote again); c's second copy has another id.
    committed: [
      { id: 'e-a', title: titleOf('a'), createdAt: at(1) },
      { id: 'e-b', title: titleOf('b'), createdAt: at(11) },
      { id: 'e-b2', title: titleOf('b'), createdAt: at(11.2) },
      { id: 'e-c', title: titleOf('c'), createdAt: at(21) },
    ],
    subscriptions: ['s0', 's1'],
    arrivals: [
      { subscription: 0, deliveryId: 'd-a0', entryId: 'e-a', arrivedAt: at(1.1) },
      { subscription: 0, deliveryId: 'd-a0', entryId: 'e-a', arrivedAt: at(1.5) },
      { subscription: 0, deliveryId: 'd-b0', entryId: 'e-b', arrivedAt: at(13) },
      { subscription: 0, deliveryId: 'd-b20', entryId: 'e-b2', arrivedAt: at(13) },
      { subscription: 0, deliveryId: 'd-c0', entryId: 'e-c', arrivedAt: at(21.5) },
      { subscription: 1, deliveryId: 'd-a1', entryId: 'e-a', arrivedAt: at(1.2) },
      { subscription: 1, deliveryId: 'other', entryId: 'e-a', arrivedAt: at(2) },
      { subscription: 1, deliveryId: 'd-b1', entryId: 'e-b', arrivedAt: at(14) },
      { subscription: 1, deliveryId: 'd-c1', entryId: 'e-c', arrivedAt: at(22) },
    ],
    invalidSignatures: 0,
  };
}

describe('the chaos soak report', () => {
  it('a write stored twice fails the soak, as a lost webhook does', () => {
    const r = record();
    const noLoss = summarise({ ...r, arrivals: r.arrivals.filter((a) => a.subscription !== 1), subscriptions: ['s0'] });
    expect(noLoss.lost).toBe(0);
    expect(noLoss.events.storedTwice).toBe(1);
    expect(noLoss.ok).toBe(false);
  });

  it('counts lost, duplicates (and those under a new delivery id), writes stored twice and availability per window', () => {
    const rep = summarise(record());
    expect(rep.subscriptions).toEqual([
      { id: 's0', received: 5, unique: 4, lost: 0, duplicates: 1, duplicatesWithNewId: 0 },
      { id: 's1', received: 4, unique: 3, lost: 1, duplicates: 1, duplicatesWithNewId: 1 },
    ]);
    expect(rep.lost).toBe(1);
    expect(rep.ok).toBe(false);
    expect(rep.events).toEqual({ committed: 4, committedWithoutAnswer: 0, storedTwice: 1, acceptedMissing: 0 });
    // The 503 at 10.5 s falls in the Postgres freeze (10 to 12.5 s); the read error at 22 s in the core kill's.
    expect(rep.availability.duringFaults.writes).toEqual({ requests: 2, ok: 1, percent: 50 });
    expect(rep.availability.outsidePostgresFaults.writes).toEqual({ requests: 2, ok: 2, percent: 100 });
    expect(rep.availability.outsidePostgresFaults.reads).toEqual({ requests: 1, ok: 0, percent: 0 });
    // API recovery: the first write sent after the fault's end answers 201 (at 21.02 s for both).
    expect(rep.faults.map((f) => [f.member, f.storedTwice, f.apiMs])).toEqual([
      ['postgres', 1, 9020],
      ['core-1', 0, 920],
    ]);
    expect(rep.outages.map((o) => [o.fromS, o.failed, o.after])).toEqual([
      [10.5, 1, 'freeze postgres (10 s)'],
      [22, 1, 'kill core-1 (20 s)'],
    ]);
    expect(formatReport(rep)).toContain('lost: 1 -> FAILED');
  });
});
