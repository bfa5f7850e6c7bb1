import { describe, expect, it } from 'vitest';
import { toStruct } from './struct.ts';

describe('toStruct', () => {
  it('copies a JSON object deeply, leaving out undefined properties', () => {
    const body = { a: 'x', b: 1.5, c: true, d: null, e: [1, 'two', { f: false }], g: { h: { i: [] } }, skipped: undefined };
    const struct = toStruct(body);
    expect(struct).toEqual({ a: 'x', b: 1.5, c: true, d: null, e: [1, 'two', { f: false }], g: { h: { i: [] } } });
    expect(Object.keys(struct)).not.toContain('skipped');
    expect(struct.g).not.toBe(body.g);
  });

  it('refuses what is not JSON', () => {
    expect(() => toStruct({ n: 1n })).toThrow('not a JSON value: bigint');
    expect(() => toStruct({ f: () => 1 })).toThrow('not a JSON value: function');
  });
});
