import {
  Type,
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  type TString,
  type TUnsafe,
} from '@sinclair/typebox';

/** A string enum with a flat JSON Schema (`enum`), so validation errors stay readable. */
export function StringEnum<T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...opts });
}

/** Type-level marks (no run-time property): a date or timestamp column's schema, and the schema a Nullable wraps. */
declare const dateColumnMark: unique symbol;
declare const nullableMark: unique symbol;
/** The schema of a date or timestamp: a string in JSON, a `Date` in a row (RowOf), as the Postgres driver returns both. */
export type TDateColumn = TString & { readonly [dateColumnMark]: true };
/** A Nullable schema, remembering what it wraps (so RowOf maps `Nullable(DateTime)` to `Date | null`). */
export type TNullable<T extends TSchema> = TUnsafe<Static<T> | null> & { readonly [nullableMark]: T };

/** `T|null` of the spec as a JSON Schema type array. */
export function Nullable<T extends TSchema>(schema: T): TNullable<T> {
  const s = schema as unknown as Record<string, unknown>;
  // The casts add the type-level mark only; the schema objects are what Type.Unsafe builds.
  if (Array.isArray(s.enum))
    return Type.Unsafe<Static<T> | null>({
      ...s,
      type: [s.type, 'null'],
      enum: [...(s.enum as unknown[]), null],
    }) as TNullable<T>;
  if (s.type) return Type.Unsafe<Static<T> | null>({ ...s, type: [s.type, 'null'] }) as TNullable<T>;
  return Type.Unsafe<Static<T> | null>({ anyOf: [s, { type: 'null' }] }) as TNullable<T>;
}

/** Whether `v` is one of `values`: narrows a validated query value to its enum's type. */
export function isOneOf<T extends string>(values: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (values as readonly string[]).includes(v);
}

/** An id. */
export const Uuid = Type.String({ format: 'uuid' });
/**
 * Years 0001..9999, in UTC too (no offset moves 0001-01-01 or 9999-12-31 across the edge): year 0000 and 10000 are
 * valid RFC 3339 or reachable by an offset, but do not round-trip through Postgres and JavaScript dates (400, not 500).
 */
export const YEAR_PATTERN = '^(?!0000)(?!0001-01-01[Tt ].*\\+(?!00:00))(?!9999-12-31[Tt ].*-(?!00:00))\\d{4}-';
/** An RFC 3339 timestamp, year 0001..9999 (a `Date` in a row: RowOf). */
export const DateTime = Type.String({ format: 'date-time', pattern: YEAR_PATTERN }) as TDateColumn;
/** A calendar date (YYYY-MM-DD), year 0001..9999 (a `Date` in a row: RowOf). */
export const DateOnly = Type.String({ format: 'date', pattern: YEAR_PATTERN }) as TDateColumn;
/**
 * A body field the spec calls a date but stores as a timestamp (release start and end): a calendar
 * date (YYYY-MM-DD, taken as midnight UTC) or an RFC 3339 date-time. Answers carry the date-time.
 */
export const DateOrDateTime = Type.String({
  format: 'date-or-date-time',
  pattern: YEAR_PATTERN,
  description: 'a calendar date (YYYY-MM-DD, midnight UTC) or an RFC 3339 date-time',
});
/** The format of DateOrDateTime, which the gateway's validator defines (`date` or `date-time`). */
export const DATE_OR_DATE_TIME_FORMAT = 'date-or-date-time';
/** Any JSON value (jsonb columns such as typeMetadata). */
export const AnyJson = Type.Unsafe<unknown>({ description: 'any JSON value' });
/** `string|null`, the most common optional column. */
export const NullableString = Nullable(Type.String());
/** Money as a non-negative decimal string (spec: money values are decimal strings). */
export const Money = Type.String({ pattern: '^\\d+(\\.\\d+)?$', description: 'decimal string, e.g. 1200.50' });

type Mismatch<M, K extends PropertyKey> = [Exclude<keyof M, K>, Exclude<K, keyof M>] extends [never, never]
  ? unknown
  : { 'names missing from the field list, or absent from the schemas': Exclude<keyof M, K> | Exclude<K, keyof M> };

/**
 * The schemas of a resource's field list, checked by the compiler: every name of `fields` (and of
 * `bodyOnly`, names a body may hold that are no column) has a schema, and no other name does.
 * The field list is the contract the core reads (its columns, in the order it reports changes);
 * the schemas' own order is the order of the API document and of validation errors.
 * The same check runs once at load, for callers the compiler does not see.
 * Use: `propertiesOf(ENTRY_WRITABLE_FIELDS)({ type: ..., title: ... })`.
 */
export function propertiesOf<F extends string, X extends string = never>(fields: readonly F[], bodyOnly: readonly X[] = []) {
  const names = new Set<string>([...fields, ...bodyOnly]);
  return <M extends TProperties>(properties: M & Mismatch<M, F | X>): M => {
    const keys = Object.keys(properties);
    if (keys.length !== names.size || keys.some((k) => !names.has(k))) {
      throw new Error(`schemas of ${keys.join(', ')} do not match the field list ${[...names].join(', ')}`);
    }
    return properties;
  };
}

/**
 * The field names of an object schema (an answer or a body), in the schema's order: the one list a
 * presenter (`presentFields`) or a store reads, so that a field is named once, in its schema.
 * `except` leaves out fields a body accepts that are no column (an ignored read-only field, an
 * idempotency reference). Use: `export const WIKI_PAGE_FIELDS = fieldsOf(WikiPage)`.
 */
export function fieldsOf<P extends TProperties, X extends keyof P & string = never>(
  schema: TObject<P>,
  opts: { except?: readonly X[] } = {},
): readonly Exclude<keyof P & string, X>[] {
  const except = new Set<string>(opts.except ?? []);
  return Object.freeze(Object.keys(schema.properties).filter((k) => !except.has(k)) as Exclude<keyof P & string, X>[]);
}

/** A JSON value as a jsonb column holds it. */
export type JsonColumn = string | number | boolean | null | JsonColumn[] | { [key: string]: JsonColumn };

/** What a row holds for a property's schema: a `Date` for a date or timestamp, JSON for AnyJson, else the answer's value. */
type RowValue<S extends TSchema> = S extends TDateColumn
  ? Date
  : S extends { readonly [nullableMark]: infer I extends TSchema }
    ? RowValue<I> | null
    : unknown extends Static<S>
      ? JsonColumn
      : Static<S>;

/**
 * The row type of an answer schema: one property per answered field, dates and timestamps as `Date` (what
 * the Postgres driver returns), jsonb columns as JSON. A store's row is this, plus the columns it keeps
 * to itself: `export type LabelRow = RowOf<typeof Label> & { organizationId: string }`.
 */
export type RowOf<T extends TObject> = { -readonly [K in keyof T['properties']]-?: RowValue<T['properties'][K]> };

type BodyProperties<T extends TProperties, R extends keyof T> = { [K in keyof T]: K extends R ? T[K] : TOptional<T[K]> };

/** A body object that rejects unknown properties; `required` names the properties it must have. */
export function Body<T extends TProperties, R extends keyof T & string = never>(
  props: T,
  opts: { required?: readonly R[]; description?: string } = {},
): TObject<BodyProperties<T, R>> {
  const required = new Set<string>(opts.required ?? []);
  const shaped: TProperties = {};
  for (const [k, v] of Object.entries(props)) shaped[k] = required.has(k) ? v : Type.Optional(v);
  // The loop above builds exactly BodyProperties<T, R>; TypeScript cannot follow a mapped object built key by key.
  return Type.Object(shaped, { additionalProperties: false, description: opts.description }) as TObject<BodyProperties<T, R>>;
}

/** The last page a list serves: page × pageSize (at most 10^8) stays far inside the int32 of the RPCs and SQL offsets. */
export const MAX_PAGE = 1_000_000;

/** Query parameters of every list: page (1..MAX_PAGE) and pageSize (1..100, default 25). */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
};

type ListQueryProperties<F extends TProperties> = {
  [K in keyof (typeof PageQuery & F)]: TOptional<(typeof PageQuery & F)[K]>;
};

/** The query of a list: page, pageSize and the resource's filters, every one optional. */
export function ListQuery<F extends TProperties = Record<never, TSchema>>(filters?: F): TObject<ListQueryProperties<F>> {
  const shaped: TProperties = {};
  for (const [k, v] of Object.entries({ ...PageQuery, ...filters })) shaped[k] = Type.Optional(v);
  // As in Body: the loop builds exactly ListQueryProperties<F>.
  return Type.Object(shaped) as TObject<ListQueryProperties<F>>;
}

/** The validated query of any list: what the gateway reads before passing the filters on. */
export type ListQueryValues = { page?: number; pageSize?: number };

/** A page of a list answer. */
export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), page: Type.Integer(), pageSize: Type.Integer(), total: Type.Integer() });
}

/** The spec's error body. */
export const ErrorBody = Type.Object(
  {
    reason: Type.String({ description: 'machine-readable reason, e.g. validation_error, forbidden, not_found, rate_limit' }),
    message: Type.String({ description: 'for people' }),
    details: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'validation_error: `errors` [{path, message}]; forbidden: `permission`; 500: `requestId`',
        },
      ),
    ),
  },
  { description: 'The error answer of every route' },
);

/** The one exception the contract fixes: 400 for unknown webhook event names. */
export const UnknownEventNamesBody = Type.Object(
  {
    error: Type.Literal('unknown_event_names'),
    invalid: Type.Array(Type.String(), { description: 'the names that are not in the event vocabulary' }),
  },
  { description: 'The 400 answer of a webhook create or update with unknown event names' },
);

/** Every error body the API answers: the common shape, or the webhook event names' own. */
export const ApiError = Type.Union([ErrorBody, UnknownEventNamesBody], { description: 'An error answer' });
