import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { Body, propertiesOf } from './common.ts';

describe('propertiesOf', () => {
  it('returns the schemas of exactly the field list (and the body-only names), in their own order', () => {
    const props = propertiesOf(['a', 'b'] as const, ['x'] as const)({ b: Type.String(), x: Type.Boolean(), a: Type.Integer() });
    expect(Object.keys(props)).toEqual(['b', 'x', 'a']);
  });

  it('throws at load when a name is missing or extra (for callers the compiler does not check)', () => {
    const fields: readonly string[] = ['a', 'b'];
    expect(() => propertiesOf(fields)({ a: Type.String() })).toThrow('schemas of a do not match the field list a, b');
    expect(() => propertiesOf(fields)({ a: Type.String(), b: Type.String(), c: Type.String() })).toThrow(/do not match/);
  });
});

describe('Body', () => {
  it('makes every property optional but the required ones, and rejects unknown properties', () => {
    const schema = JSON.parse(JSON.stringify(Body({ a: Type.String(), b: Type.Integer() }, { required: ['b'], description: 'd' })));
    expect(schema).toEqual({
      type: 'object', additionalProperties: false, description: 'd', required: ['b'],
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
    });
  });
});
