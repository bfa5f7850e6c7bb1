import { describe, expect, it } from 'vitest';
import { EVENT_EXAMPLES } from './event-examples.ts';
import { WEBHOOK_FILTER_LIMITS, checkWebhookFilter, matchesWebhookFilter, webhookFilterInput } from './webhook-filter.ts';

/** [input, filter, passes]: the syntax's documented cases (docs/webhooks.md, "Filters") and its edges. */
const cases: [unknown, unknown, boolean][] = [
  // exact values: strict equality, no casts
  [{ type: 'created' }, { type: 'created' }, true],
  [{}, { type: 'created' }, false],
  [{ type: 'updated' }, { type: 'created' }, false],
  [{ type: 1 }, { type: 'created' }, false],
  [{ type: 1 }, { type: 1 }, true],
  [{ type: '1' }, { type: 1 }, false],
  [{ type: true }, { type: 'true' }, false],
  [{ type: 0 }, { type: false }, false],
  [{ type: null }, { type: null }, true],
  [{}, { type: null }, false],
  [{ count: 1, type: 'created' }, { count: 1 }, true],
  [{ count: 1, type: 'created' }, { count: 1, type: 'created' }, true],
  [{ count: 1 }, { count: 1, type: 'created' }, false],
  // nested objects
  [{ t: { s: 'created' } }, { t: { s: 'created' } }, true],
  [{ t: { s: 'created' } }, { t: { s: 'updated' } }, false],
  [{ t: { s: 'created' } }, { t: 1 }, false],
  [{ t: 'x' }, { t: { s: 'x' } }, false],
  [{ t: {} }, { t: {} }, true],
  [{ t: 'x' }, { t: {} }, false],
  // arrays: a value matches an array holding it; an object, an element meeting all of it; a list, all of its items
  [{ tags: ['test', 'other'] }, { tags: 'test' }, true],
  [{ tags: ['test', 'other'] }, { tags: 'nope' }, false],
  [{ items: [{ sku: 'a' }] }, { items: { sku: 'a' } }, true],
  [{ items: [{ sku: 'a' }] }, { items: { sku: 'b' } }, false],
  [{ items: [{ n: 9 }, { n: 11 }] }, { items: { n: { $lte: 10 } } }, true],
  [{ items: [{ n: 12 }, { n: 11 }] }, { items: { n: { $lte: 10 } } }, false],
  [
    {
      items: [
        { a: 1, b: 2 },
        { a: 2, b: 1 },
      ],
    },
    { items: { a: 1, b: 1 } },
    false,
  ],
  [
    {
      items: [
        { a: 1, b: 2 },
        { a: 2, b: 1 },
      ],
    },
    { items: { a: 1, b: 2 } },
    true,
  ],
  [{ tags: ['a', 'b', 'c'] }, { tags: ['a', 'b'] }, true],
  [{ tags: ['a', 'b', 'c'] }, { tags: ['a', 'z'] }, false],
  [{ tags: 'a' }, { tags: ['a'] }, false],
  [{ tags: [['a']] }, { tags: 'a' }, false],
  [{ tags: ['a', 'b'] }, { tags: { $eq: ['a', 'b'] } }, true],
  [{ tags: ['a', 'b', 'c'] }, { tags: { $eq: ['a', 'b'] } }, false],
  [{ tags: ['a'] }, { tags: { $eq: 'a' } }, false],
  // comparisons
  [{ n: 0 }, { n: { $lt: 1 } }, true],
  [{ n: 2 }, { n: { $lt: 1 } }, false],
  [{ n: 2 }, { n: { $eq: 2 } }, true],
  [{ n: 2 }, { n: { $neq: 2 } }, false],
  [{ n: 2 }, { n: { $gt: 1, $lt: 3 } }, true],
  [{ n: 4 }, { n: { $gt: 1, $lt: 3 } }, false],
  [{ n: 3 }, { n: { $gte: 3, $lte: 3 } }, true],
  [{ s: 'a' }, { s: { $gt: 'b' } }, false],
  [{ s: 'c' }, { s: { $gt: 'b' } }, true],
  [{ at: '2026-11-28T12:00:00.000Z' }, { at: { $gte: '2026-11-01T00:00:00Z', $lt: '2026-12-01T00:00:00Z' } }, true],
  [{ n: '5' }, { n: { $gt: 1 } }, false],
  [{ n: null }, { n: { $lt: 1 } }, false],
  [{ n: [5] }, { n: { $gt: 1 } }, false],
  [{ n: { v: 1 } }, { n: { $eq: { v: 1 } } }, true],
  [{ n: { v: 1, w: 2 } }, { n: { $eq: { v: 1 } } }, false],
  [{ n: null }, { n: { $eq: null } }, true],
  [{ n: null }, { n: { $neq: null } }, false],
  [{ n: 1 }, { n: { $neq: null } }, true],
  [{}, { n: { $neq: 1 } }, false],
  // membership: a list holds the value; a string is held by a string value, or is an element of an array value
  [{ s: 'some-text', id: 123 }, { s: { $in: 'text' }, id: { $in: [123, 456] } }, true],
  [{ s: 'some-text' }, { s: { $in: ['some-text', 'other'] } }, true],
  [{ s: 'some-text', id: 123 }, { s: { $in: ['some', 'text'] } }, false],
  [{ id: 123 }, { id: { $nin: [123, 456] } }, false],
  [{ id: 7 }, { id: { $nin: [123, 456] } }, true],
  [{ s: 'some-text' }, { s: { $nin: 'some' } }, false],
  [{ tags: ['test', 'x'] }, { tags: { $nin: 'test' } }, false],
  [{ tags: ['test', 'x'] }, { tags: { $in: 'test' } }, true],
  [{ tags: ['a', 'b'] }, { tags: { $in: ['b', 'c'] } }, true],
  [{ tags: ['a', 'b'] }, { tags: { $nin: ['c', 'd'] } }, true],
  [{ o: { a: 1 } }, { o: { $in: [1] } }, false],
  [{ o: { a: 1 } }, { o: { $nin: [1] } }, false],
  [{ n: 1 }, { n: { $in: '1' } }, false],
  [{ n: 1 }, { n: { $nin: '1' } }, false],
  [{}, { n: { $nin: [1] } }, false],
  // strings
  [{ s: 'some-text' }, { s: { $startsWith: 'some' } }, true],
  [{ s: 'some-text' }, { s: { $endsWith: 'some' } }, false],
  [{ s: 'some-text' }, { s: { $endsWith: 'text' } }, true],
  [{ s: 'some-text' }, { s: { $startsWith: ['x', 'some'] } }, true],
  [{ s: 'some-text' }, { s: { $startsWith: ['x', 'y'] } }, false],
  [{ s: 'some-text' }, { s: { $endsWith: ['x', 'text'] } }, true],
  [{ s: { more: true } }, { s: { $startsWith: 'text' } }, false],
  [{ s: ['some'] }, { s: { $startsWith: 'some' } }, false],
  // existence: null exists; a missing field meets $exist: false and nothing else
  [{ s: 'x' }, { s: { $exist: true } }, true],
  [{ s: 'x' }, { s: { $exist: false } }, false],
  [{ t: 'x' }, { s: { $exist: true } }, false],
  [{ t: 'x' }, { s: { $exist: false } }, true],
  [{ s: null }, { s: { $exist: true } }, true],
  [{ a: { b: { c: 1 } } }, { a: { b: { d: { $exist: false } } } }, true],
  [{ a: { b: { c: 1 } } }, { a: { b: { c: { $exist: false } } } }, false],
  [{}, { a: { b: { $exist: false } } }, false],
  [{}, { a: { $not: 'x' } }, false],
  [{}, { $not: { a: 'x' } }, true],
  // logic
  [{ t: true }, { $or: [{ t: true }] }, true],
  [{ t: true }, { $or: [{ t: false }] }, false],
  [{ t: { s: 'else' } }, { t: { $or: [{ s: true }, { s: { $in: 'else' } }] } }, true],
  [{ t: { s: 'else' } }, { t: { $or: [{ s: true }, { s: { $in: 'no' } }] } }, false],
  [{ n: 1 }, { n: { $or: [1, 2] } }, true],
  [{ n: 1 }, { n: { $or: [2, 3] } }, false],
  [{ t: true }, { $and: [{ t: true }] }, true],
  [{ t: { s: 'else' } }, { t: { $and: [{ s: { $neq: null } }, { s: { $in: 'else' } }] } }, true],
  [{ t: { s: null } }, { t: { $and: [{ s: { $neq: null } }, { s: { $in: 'else' } }] } }, false],
  [{ n: 1 }, { n: { $and: [1, 2] } }, false],
  [
    { t: { a: 'else', b: 'not' } },
    { t: { a: { $exist: true, $or: ['else', 'not'] }, $and: [{ a: 'else' }, { b: 'not' }] } },
    true,
  ],
  [{ t: { a: 'else', b: 'not' } }, { t: { a: { $exist: true, $or: ['x', 'y'] } } }, false],
  [{ s: 'done' }, { s: { $not: { $in: ['cancelled', 'refunded'] } } }, true],
  [{ s: 'cancelled' }, { s: { $not: { $in: ['cancelled', 'refunded'] } } }, false],
  [{ t: { a: 'x', b: 'y' } }, { $not: { t: { a: 'z' } }, $and: [{ t: { a: 'x' } }, { t: { b: 'y' } }] }, true],
  [{ t: { a: 'x', b: 'y' } }, { $not: { t: { a: 'x' } }, $and: [{ t: { a: 'x' } }, { t: { b: 'y' } }] }, false],
  [{ tags: ['a', 'b'] }, { tags: { $and: ['a', 'b'] } }, false],
  [{ tags: ['a', 'b'] }, { $and: [{ tags: 'a' }, { tags: 'b' }] }, true],
  [{ tags: ['a', 'b'] }, { $not: { tags: 'a' } }, false],
  // unknown operators never match (they are refused when saved)
  [{ s: 'x' }, { s: { $regex: 'x' } }, false],
  [{ s: 'x' }, { $where: 'true' }, false],
];

describe('matchesWebhookFilter', () => {
  it.each(cases)('%j against %j is %s', (input, filter, passes) => {
    expect(matchesWebhookFilter(filter, input)).toBe(passes);
  });

  it('$not inverts every case whose filter is an object', () => {
    for (const [input, filter, passes] of cases) {
      if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) continue;
      expect(matchesWebhookFilter({ $not: filter }, input), JSON.stringify([input, filter])).toBe(!passes);
    }
  });

  it('an empty filter passes every event', () => {
    expect(matchesWebhookFilter({}, { eventName: 'entry.created', payload: {} })).toBe(true);
  });

  it('never throws, whatever the filter and the input', () => {
    const strange: unknown[] = [
      undefined,
      null,
      0,
      'x',
      [],
      [[]],
      { $or: 'x' },
      { $and: 1 },
      { $not: undefined },
      { a: undefined },
      { a: { $in: { x: 1 } } },
      { a: { $startsWith: 1 } },
      { a: { $gt: null } },
      { a: () => 1 },
      Object.create(null),
    ];
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const inputs: unknown[] = [undefined, null, 1, 'x', [], {}, { a: [1, [2, [3]]] }, cyclic];
    for (const filter of strange) for (const input of inputs) expect(typeof matchesWebhookFilter(filter, input)).toBe('boolean');
    // A filter that refers to itself ends at the depth bound instead of the stack's.
    const loop: Record<string, unknown> = {};
    loop.a = loop;
    expect(matchesWebhookFilter(loop, cyclic)).toBe(false);
    expect(matchesWebhookFilter({ self: { self: { a: 1 } } }, cyclic)).toBe(true);
  });

  it('bounds an evaluation: past the step budget the event does not pass', () => {
    const big = { items: Array.from({ length: 200_000 }, (_, i) => i) };
    const t0 = performance.now();
    expect(matchesWebhookFilter({ items: { $or: ['x', 'y'] } }, big)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(1000);
    // Within the budget the same shape passes.
    expect(matchesWebhookFilter({ items: 5 }, { items: [1, 2, 5] })).toBe(true);
  });

  it('sees the delivered body without its delivery id', () => {
    const example = EVENT_EXAMPLES.get('entry.status_changed')!;
    const input = webhookFilterInput(example);
    expect(input).not.toHaveProperty('id');
    expect(Object.keys(input).sort()).toEqual(
      ['actorUserId', 'entityId', 'entityType', 'eventName', 'occurredAt', 'payload', 'schemaVersion'].sort(),
    );
    expect(matchesWebhookFilter({ eventName: 'entry.status_changed', payload: { newStatus: 'in_progress' } }, input)).toBe(true);
    expect(matchesWebhookFilter({ id: { $exist: true } }, input)).toBe(false);
  });
});

describe('checkWebhookFilter', () => {
  const pathsOf = (filter: unknown) => checkWebhookFilter(filter).map((p) => p.path);

  it('accepts the documented filters', () => {
    for (const filter of [
      {},
      { payload: { status: 'done' } },
      { eventName: { $startsWith: 'entry.' }, payload: { type: { $in: ['bug_report', 'question'] } } },
      { payload: { amount: { $gte: 100, $lt: 500 } } },
      { payload: { email: { $endsWith: ['@example.com', '@example.org'] } } },
      { payload: { deletedAt: { $exist: false } } },
      { $or: [{ payload: { status: 'paid' } }, { payload: { status: 'shipped' } }] },
      { payload: { status: { $not: { $in: ['cancelled', 'refunded'] } } } },
      { payload: { tags: ['a', 'b'] } },
      { payload: { labels: { $eq: { name: 'x', $odd: 1 } } } },
      { payload: { 'a/b~c': 1 } },
    ]) {
      expect(checkWebhookFilter(filter), JSON.stringify(filter)).toEqual([]);
    }
  });

  it('refuses a filter that is no object', () => {
    for (const filter of ['x', 1, true, [], [{ a: 1 }]]) expect(pathsOf(filter)).toEqual(['/filter']);
    expect(checkWebhookFilter('x')[0].message).toBe('must be an object, not a string');
  });

  it('points at an unknown operator', () => {
    expect(checkWebhookFilter({ payload: { status: { $regex: 'x' } } })).toEqual([
      {
        path: '/filter/payload/status/$regex',
        message: expect.stringMatching(/^unknown operator \$regex; the operators are \$eq/) as string,
      },
    ]);
    expect(pathsOf({ $nor: [] })).toEqual(['/filter/$nor']);
    expect(pathsOf({ payload: { $exists: true } })).toEqual(['/filter/payload/$exists']);
  });

  it('points at an operand of the wrong type', () => {
    expect(checkWebhookFilter({ payload: { n: { $gt: true } } })).toEqual([
      { path: '/filter/payload/n/$gt', message: 'must be a number or a string, not a boolean' },
    ]);
    expect(pathsOf({ a: { $in: 5 } })).toEqual(['/filter/a/$in']);
    expect(pathsOf({ a: { $in: ['x', { y: 1 }] } })).toEqual(['/filter/a/$in/1']);
    expect(pathsOf({ a: { $startsWith: 1 } })).toEqual(['/filter/a/$startsWith']);
    expect(pathsOf({ a: { $endsWith: ['x', 2] } })).toEqual(['/filter/a/$endsWith/1']);
    expect(pathsOf({ a: { $exist: 'yes' } })).toEqual(['/filter/a/$exist']);
    expect(pathsOf({ $or: { a: 1 } })).toEqual(['/filter/$or']);
    expect(pathsOf({ $and: [] })).toEqual(['/filter/$and']);
    expect(pathsOf({ a: [] })).toEqual(['/filter/a']);
    expect(pathsOf({ a: { $gt: 1, b: 2 } })).toEqual(['/filter/a']);
  });

  it('escapes field names in the pointer (RFC 6901)', () => {
    expect(pathsOf({ 'a/b': { 'c~d': { $bad: 1 } } })).toEqual(['/filter/a~1b/c~0d/$bad']);
  });

  it('refuses a filter too deep, too big or with too many values', () => {
    let deep: Record<string, unknown> = { z: 1 };
    for (let i = 0; i < WEBHOOK_FILTER_LIMITS.depth; i++) deep = { a: deep };
    expect(checkWebhookFilter(deep)).toEqual([
      { path: '/filter/a/a/a/a/a/a/a/a/z', message: `nests deeper than ${WEBHOOK_FILTER_LIMITS.depth} levels` },
    ]);
    let fits: Record<string, unknown> = { z: 1 };
    for (let i = 0; i < WEBHOOK_FILTER_LIMITS.depth - 1; i++) fits = { a: fits };
    expect(checkWebhookFilter(fits)).toEqual([]);

    const big = { payload: { title: { $in: 'x'.repeat(WEBHOOK_FILTER_LIMITS.bytes) } } };
    expect(checkWebhookFilter(big)).toEqual([
      { path: '/filter', message: expect.stringMatching(/^is \d+ bytes of JSON; at most 4096$/) as string },
    ]);

    const long = { a: { $in: Array.from({ length: WEBHOOK_FILTER_LIMITS.listItems + 1 }, (_, i) => i) } };
    expect(checkWebhookFilter(long)).toEqual([{ path: '/filter/a/$in', message: 'has 65 items; at most 64' }]);

    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, i]));
    expect(checkWebhookFilter(many)).toEqual([{ path: '/filter', message: 'has 301 values; at most 256' }]);
  });

  it('lists at most 20 problems', () => {
    const bad = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, { $bad: i }]));
    expect(checkWebhookFilter(bad)).toHaveLength(20);
  });

  it('never throws', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.a = cyclic;
    expect(checkWebhookFilter(cyclic)).toEqual([{ path: '/filter', message: 'must be JSON' }]);
    expect(checkWebhookFilter({ a: 1n })).toEqual([{ path: '/filter', message: 'must be JSON' }]);
  });
});
