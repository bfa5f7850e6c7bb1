import { describe, expect, it } from 'vitest';
import { DomainError } from '@cluster/platform';
import { MAX_JSON_DEPTH, assertJsonMediaType, assertSafeJson, assertSafeQuery } from './safe-input.ts';

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 1; i < levels; i++) v = [v];
  return [v];
};

const failure = (fn: () => void): DomainError | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  return undefined;
};

describe('assertSafeJson', () => {
  it('lists every NUL in strings and keys at its JSON pointer (~ and / escaped)', () => {
    const err = failure(() => assertSafeJson({ a: 'x\0', 'b/c': ['ok', { 'd~\0': 'y' }] }));
    expect(err?.status).toBe(400);
    expect(err?.details).toEqual({
      errors: [
        { path: '/a', message: 'must not contain a NUL character' },
        { path: '/b~1c/1/d~0\0', message: 'must not contain a NUL character in its name' },
      ],
    });
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(failure(() => assertSafeJson(nested(MAX_JSON_DEPTH)))).toBeUndefined();
    expect(failure(() => assertSafeJson(nested(MAX_JSON_DEPTH + 1)))?.reason).toBe('validation_error');
    expect(failure(() => assertSafeJson(nested(100_000)))?.reason).toBe('validation_error');
  });
});

describe('assertSafeQuery', () => {
  it('names each parameter with a NUL, repeated values included', () => {
    expect(failure(() => assertSafeQuery({ q: 'a', page: ['1', '2'] }))).toBeUndefined();
    expect(failure(() => assertSafeQuery({ q: 'a\0', tag: ['x', 'y\0'] }))?.details).toEqual({
      errors: [
        { path: 'q', message: 'must not contain a NUL character' },
        { path: 'tag', message: 'must not contain a NUL character' },
      ],
    });
  });
});

describe('assertJsonMediaType', () => {
  it('reads application/json and +json types only', () => {
    for (const ok of ['application/json', 'APPLICATION/JSON', 'application/merge-patch+json']) {
      expect(failure(() => assertJsonMediaType(ok))).toBeUndefined();
    }
    for (const bad of ['text/plain', 'application/x-www-form-urlencoded', 'text/json', '']) {
      expect(failure(() => assertJsonMediaType(bad))?.status).toBe(415);
    }
  });
});
