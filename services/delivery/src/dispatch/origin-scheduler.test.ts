import { describe, expect, it } from 'vitest';
import { createOriginScheduler } from './origin-scheduler.ts';

type D = { id: string; destinationOrigin: string };
const to = (origin: string, n: number, from = 0): D[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${origin}-${from + i}`, destinationOrigin: origin }));
const origins = (ds: D[]) => ds.map((d) => d.destinationOrigin);

function scheduler(limits: { concurrency: number; perOrigin: number; pollMs?: number }, now = { t: 1_000_000 }) {
  return { s: createOriginScheduler<D>({ pollMs: 1000, ...limits }, () => now.t), now };
}

describe('per-origin scheduler: sending', () => {
  it('sends at most perOrigin to one origin and concurrency in all', () => {
    const { s } = scheduler({ concurrency: 5, perOrigin: 2 });
    s.add([...to('a', 4), ...to('b', 4), ...to('c', 4)]);
    const first = s.takeSendable();
    expect(origins(first)).toEqual(['a', 'a', 'b', 'b', 'c']);
    expect(s.sending()).toBe(5);
    // Nothing more while every slot of the replica is taken.
    expect(s.takeSendable()).toEqual([]);
    s.sent('a');
    // The freed replica slot goes to the origin with a free slot of its own, not back to the full ones.
    expect(origins(s.takeSendable())).toEqual(['a']);
    s.sent('c');
    expect(origins(s.takeSendable())).toEqual(['c']);
  });

  it('is fair: a backlog of one origin does not keep the others waiting', () => {
    const { s } = scheduler({ concurrency: 8, perOrigin: 2 });
    s.add(to('slow', 50));
    s.add(to('fast', 1));
    const started = s.takeSendable();
    expect(started.filter((d) => d.destinationOrigin === 'slow')).toHaveLength(2);
    expect(started.filter((d) => d.destinationOrigin === 'fast')).toHaveLength(1);
    expect(s.sending()).toBe(3);
  });

  it('sends deliveries of one origin in the order they came', () => {
    const { s } = scheduler({ concurrency: 1, perOrigin: 1 });
    s.add(to('a', 3));
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [d] = s.takeSendable();
      order.push(d.id);
      s.sent('a');
      s.finished('a');
    }
    expect(order).toEqual(['a-0', 'a-1', 'a-2']);
    expect(s.held()).toBe(0);
  });
});

describe('per-origin scheduler: holding and claiming', () => {
  it('holds up to three times the slots of an origin, and three times the concurrency in all', () => {
    const { s } = scheduler({ concurrency: 4, perOrigin: 2 });
    expect(s.capacity('a')).toBe(6);
    s.add(to('a', 4));
    expect(s.capacity('a')).toBe(2);
    expect(s.capacity('b')).toBe(6);
    s.add(to('b', 6));
    // 10 held of 12: the replica bound is now the smaller.
    expect(s.capacity('c')).toBe(2);
    const room = s.beginClaim();
    expect(room).toEqual({
      limit: 2,
      defaultCap: 6,
      caps: new Map([
        ['a', 2],
        ['b', 0],
      ]),
    });
  });

  it('asks for a refill once a third of what an origin may hold has drained, or all of it', () => {
    const { s } = scheduler({ concurrency: 100, perOrigin: 3 }); // holds 9, refills at 6
    s.add(to('a', 9));
    s.beginClaim(); // a claim starts: the backlog is clear
    s.markBacklog(); // ... and came back with more waiting
    s.takeSendable();
    expect(s.sent('a')).toBe(false); // 8 held
    s.takeSendable();
    expect(s.sent('a')).toBe(false); // 7
    s.takeSendable();
    expect(s.sent('a')).toBe(true); // 6: two thirds left, refill
    s.takeSendable();
    expect(s.sent('a')).toBe(false); // 5
  });

  it('does not ask for a refill when no due rows are known to wait', () => {
    const { s } = scheduler({ concurrency: 100, perOrigin: 1 }); // holds 3, refills at 2
    s.add(to('a', 3));
    s.beginClaim();
    s.takeSendable();
    expect(s.sent('a')).toBe(false);
  });

  it('resumes claiming when an attempt finishes in a replica that was full', () => {
    const { s } = scheduler({ concurrency: 1, perOrigin: 1 }); // holds 3 in all
    s.add([...to('a', 2), ...to('b', 1)]);
    expect(s.beginClaim()).toBeUndefined(); // full: no room for any claim
    s.takeSendable();
    s.sent('a');
    s.markBacklog();
    expect(s.finished('a')).toBe(true);
    expect(s.held()).toBe(2);
    expect(origins(s.takeSendable())).toEqual(['a']);
    s.sent('a');
    expect(s.finished('a')).toBe(false); // not full any more: the claim loop was not held back
  });

  it('hands queued deliveries back when stopping, and counts them held no more', () => {
    const { s } = scheduler({ concurrency: 2, perOrigin: 1 });
    s.add([...to('a', 3), ...to('b', 2)]);
    s.takeSendable();
    expect(s.drain().map((d) => d.id)).toEqual(['a-1', 'a-2', 'b-1']);
    expect(s.held()).toBe(2);
    expect(s.takeSendable()).toEqual([]);
  });

  it('notes that more may be due after a claim that was full, left an origin out, or filled an origin', () => {
    const { s } = scheduler({ concurrency: 10, perOrigin: 2 });
    const room = s.beginClaim()!;
    s.claimed(room, to('a', 3), false);
    expect(s.beginClaim()).toBeUndefined(); // fewer than asked, no origin full: nothing more is due
    const { s: t } = scheduler({ concurrency: 10, perOrigin: 2 });
    const r2 = t.beginClaim()!;
    t.claimed(r2, to('a', 6), false); // an origin took its whole cap (6)
    expect(t.beginClaim()).toBeDefined();
    const { s: u } = scheduler({ concurrency: 10, perOrigin: 2 });
    const r3 = u.beginClaim()!;
    u.claimed(r3, [], true); // the scan window was full
    expect(u.beginClaim()).toBeDefined();
  });
});

describe('per-origin scheduler: when to claim and to sleep', () => {
  it('claims at once, then only on a backlog, a retry falling due, or the poll interval', () => {
    const { s, now } = scheduler({ concurrency: 10, perOrigin: 2, pollMs: 1000 });
    const room = s.beginClaim();
    expect(room).toBeDefined();
    s.claimed(room!, [], false);
    expect(s.beginClaim()).toBeUndefined();
    // Something was inserted unleased (or another replica notified).
    s.markBacklog();
    expect(s.beginClaim()).toBeDefined();
    expect(s.beginClaim()).toBeUndefined();
    // A retry scheduled here, sooner than anything: the loop re-plans its sleep.
    expect(s.retryAt(now.t + 300)).toBe(true);
    expect(s.retryAt(now.t + 500)).toBe(false);
    s.dueChecked(Infinity);
    s.retryAt(now.t + 300);
    expect(s.sleepMs()).toBe(300);
    now.t += 300;
    s.woke();
    expect(s.beginClaim()).toBeDefined();
    // Nothing at all: the poll interval (expired leases) still claims.
    now.t += 999;
    expect(s.beginClaim()).toBeUndefined();
    now.t += 1;
    expect(s.beginClaim()).toBeDefined();
  });

  it('asks the database for the next due time at most once per poll interval, and sleeps at least 1 ms', () => {
    const { s, now } = scheduler({ concurrency: 10, perOrigin: 2, pollMs: 1000 });
    expect(s.dueCheckDue()).toBe(true);
    s.dueChecked(now.t + 5000);
    expect(s.dueCheckDue()).toBe(false);
    s.beginClaim();
    expect(s.sleepMs()).toBe(1000); // the poll interval comes before the next due time
    now.t += 1000;
    expect(s.dueCheckDue()).toBe(true);
    expect(s.sleepMs()).toBe(1);
  });
});

describe('per-origin scheduler: rate slots', () => {
  type T = D & { notBefore?: Date | null };
  it('holds a delivery until its send time, counted against its origin, then sends it in turn', () => {
    const now = { t: 1_000_000 };
    const s = createOriginScheduler<T>({ concurrency: 8, perOrigin: 4, pollMs: 1000 }, () => now.t);
    const at = (ms: number) => new Date(now.t + ms);
    s.add([
      { id: 'a0', destinationOrigin: 'a', notBefore: at(0) },
      { id: 'a2', destinationOrigin: 'a', notBefore: at(200) },
      { id: 'a1', destinationOrigin: 'a', notBefore: at(100) },
      { id: 'b', destinationOrigin: 'b' },
    ]);
    expect(s.takeSendable().map((d) => d.id)).toEqual(['a0', 'b']);
    // The two held ones count against a's hold (12 = 3 x 4): the fan-out may hand it 12 - 3 more.
    expect(s.capacity('a')).toBe(9);
    expect(s.nextTimedAt()).toBe(now.t + 100);
    now.t += 150;
    expect(s.takeSendable().map((d) => d.id)).toEqual(['a1']);
    expect(s.nextTimedAt()).toBe(now.t + 50);
    now.t += 50;
    expect(s.takeSendable().map((d) => d.id)).toEqual(['a2']);
    expect(s.nextTimedAt()).toBe(Infinity);
  });

  it('gives held deliveries back when the loop stops', () => {
    const now = { t: 1_000_000 };
    const s = createOriginScheduler<T>({ concurrency: 8, perOrigin: 4, pollMs: 1000 }, () => now.t);
    s.add([{ id: 'later', destinationOrigin: 'a', notBefore: new Date(now.t + 500) }]);
    expect(s.drain().map((d) => d.id)).toEqual(['later']);
    expect(s.held()).toBe(0);
    expect(s.capacity('a')).toBe(12);
  });
});
