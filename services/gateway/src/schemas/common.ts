import { Type, type TSchema, type Static } from '@sinclair/typebox';

export { Type, type TSchema, type Static };

/** A string enum with a flat JSON Schema (`enum`), so validation errors stay readable. */
export function StringEnum<T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...opts });
}

/** `T|null` of the spec as a JSON Schema type array. */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as Record<string, unknown>;
  if (Array.isArray(s.enum)) return Type.Unsafe<Static<T> | null>({ ...s, type: [s.type, 'null'], enum: [...(s.enum as unknown[]), null] });
  if (s.type) return Type.Unsafe<Static<T> | null>({ ...s, type: [s.type, 'null'] });
  return Type.Unsafe<Static<T> | null>({ anyOf: [s, { type: 'null' }] });
}

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
export const AnyJson = Type.Unsafe<unknown>({ description: 'any JSON value' });
export const NullableString = Nullable(Type.String());

/** A body object that rejects unknown properties. */
export function Body<T extends Record<string, TSchema>>(props: T, opts: { required?: (keyof T & string)[]; description?: string } = {}) {
  const required = new Set(opts.required ?? []);
  const shaped = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, required.has(k) ? v : Type.Optional(v)]));
  return Type.Object(shaped, { additionalProperties: false, description: opts.description }) as unknown as TSchema;
}

/** Query parameters of every list: page (from 1) and pageSize (1..100, default 25). */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
};

export function ListQuery(filters: Record<string, TSchema> = {}) {
  return Type.Object(Object.fromEntries(Object.entries({ ...PageQuery, ...filters }).map(([k, v]) => [k, Type.Optional(v)])));
}

export function ListOf(item: TSchema) {
  return Type.Object({ data: Type.Array(item), page: Type.Integer(), pageSize: Type.Integer(), total: Type.Integer() });
}

export const ErrorBody = Type.Object({
  reason: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
