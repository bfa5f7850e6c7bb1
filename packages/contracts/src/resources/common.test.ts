import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { Body, propertiesOf } from './common.ts';

describe('propertiesOf', () => {
  it('returns the schemas of exactly the field list (and the body-only names), in their own order', () => {
    const props = propertiesOf(['a', 'b'] as const, ['x'] as const)({ b: Type.String(), x: Type.Boolean(), a: Type.Integer() });
    expect(Object.keys(props)).toEqual(['b', 'x', 'a']);
  });

  it('refuses a missing or an extra name: the compiler, and at load for callers it does not check', () => {
    const fields = ['a', 'b'] as const;
    // @ts-expect-error b has no schema
    expect(() => propertiesOf(fields)({ a: Type.String() })).toThrow('schemas of a do not match the field list a, b');
    // @ts-expect-error c is no field
    expect(() => propertiesOf(fields)({ a: Type.String(), b: Type.String(), c: Type.String() })).toThrow(/do not match/);
  });
});

describe('Body', () => {
  it('makes every property optional but the required ones, and rejects unknown properties', () => {
    const schema: unknown = JSON.parse(
      JSON.stringify(Body({ a: Type.String(), b: Type.Integer() }, { required: ['b'], description: 'd' })),
    );
    expect(schema).toEqual({
      type: 'object',
      additionalProperties: false,
      description: 'd',
      required: ['b'],
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
    });
  });
});
