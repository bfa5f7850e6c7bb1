import { describe, expect, expectTypeOf, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import {
  AnyJson,
  Body,
  DateOnly,
  DateTime,
  Nullable,
  NullableString,
  StringEnum,
  Uuid,
  YEAR_PATTERN,
  isOneOf,
  propertiesOf,
  type JsonColumn,
  type RowOf,
} from './common.ts';

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

describe('RowOf', () => {
  it('types a row from its answer schema: dates as Date (nullable ones too), AnyJson as JSON, enums narrowed', () => {
    const Answer = Type.Object({
      id: Uuid,
      at: DateTime,
      day: DateOnly,
      closedAt: Nullable(DateTime),
      meta: AnyJson,
      note: NullableString,
      status: StringEnum(['open', 'done'] as const),
      count: Type.Optional(Type.Integer()),
    });
    expectTypeOf<RowOf<typeof Answer>>().toEqualTypeOf<{
      id: string;
      at: Date;
      day: Date;
      closedAt: Date | null;
      meta: JsonColumn;
      note: string | null;
      status: 'open' | 'done';
      count: number;
    }>();
    // The marks are the compiler's alone: the schemas are plain JSON Schema.
    expect(Object.keys(Answer.properties)).toHaveLength(8);
    const wire: unknown = JSON.parse(JSON.stringify(Nullable(DateTime)));
    expect(wire).toEqual({ type: ['string', 'null'], format: 'date-time', pattern: YEAR_PATTERN });
  });
});

describe('isOneOf', () => {
  it("narrows a value to its enum's type, and refuses what is not in it", () => {
    const values = ['a', 'b'] as const;
    const v: unknown = 'a';
    expect(isOneOf(values, v)).toBe(true);
    if (isOneOf(values, v)) expectTypeOf(v).toEqualTypeOf<'a' | 'b'>();
    expect(isOneOf(values, 'c')).toBe(false);
    expect(isOneOf(values, 1)).toBe(false);
    expect(isOneOf(values, undefined)).toBe(false);
  });
});
