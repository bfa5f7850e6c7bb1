import fc from 'fast-check';

/**
 * A route's body or query schema as TypeBox emits it: plain JSON Schema. These are the keywords the
 * route table uses (Type.Object, Type.String with format/pattern/length, Type.Integer with bounds,
 * Type.Boolean, Type.Array, StringEnum, Nullable's type arrays and anyOf, Type.Unknown and AnyJson).
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/** What valid values are drawn from besides the schema: real ids, the one URL origin, known words. */
export interface ValuePools {
  /** The organization's own ids a uuid property draws from, by the property's name (`projectIds`: its projects). */
  idsFor(property: string): readonly string[];
  /** The only origin a `format: uri` value points at: a receiver of the test, so no request leaves the machine. */
  urlBase: string;
  /** Groups of words the API knows (event names, entity types): a plain string is often one of them. */
  words: readonly (readonly string[])[];
}

/** The longest plain string a valid value usually has. */
const SHORT = 40;
/** The most items a valid array has. */
const FEW = 5;

/** Deterministic pseudo-random numbers (mulberry32): the long texts are the same in every run. */
function pseudoRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** `length` letters and digits with no repeats to compress: past what a Postgres btree row holds (2704 bytes). */
export function incompressible(length: number, seed = 1): string {
  const next = pseudoRandom(seed);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

/** About 800 KB of distinct words (a full-text vector of it is past Postgres' 1 MB tsvector limit). */
export const MANY_WORDS = Array.from({ length: 130_000 }, (_, i) => ((i * 7919) % 2_000_003).toString(36)).join(' ');

/** An instant in years 0001..9999, the range the API accepts. */
const someDate = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
/** RFC 3339 date-times and calendar dates, with one example each (to try a pattern with). */
const isoDateTime = { arbitrary: someDate.map((d) => d.toISOString()), example: '2026-03-05T10:00:00.000Z' };
const isoDate = { arbitrary: someDate.map((d) => d.toISOString().slice(0, 10)), example: '2026-03-05' };

/** Long values that are still valid where a string has no maxLength: a few KB without repeats, or a book of words. */
const LONG_VALID = [incompressible(3000), MANY_WORDS];

/**
 * Values that match `schema`: the starting point that mutations then break. `name` is the property the value is
 * for, so that an id property draws the organization's ids of its kind.
 */
export function validValue(schema: JsonSchema, pools: ValuePools, name = ''): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validValue(s, pools, name)));
  const types = typeof schema.type === 'string' ? [schema.type] : (schema.type ?? []);
  // Untyped (Type.Unknown, AnyJson): any JSON value.
  if (types.length === 0) return fc.jsonValue({ maxDepth: 3 });
  if (types.length > 1) {
    // The null of a nullable field is one choice in four, the value three.
    const values = types.filter((t) => t !== 'null').map((type) => validValue({ ...schema, type }, pools, name));
    return types.includes('null')
      ? fc.oneof({ weight: 3, arbitrary: fc.oneof(...values) }, fc.constant(null))
      : fc.oneof(...values);
  }
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 - 1 });
    case 'number':
      return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return validString(schema, pools, name);
    case 'array':
      return fc.array(validValue(schema.items ?? {}, pools, name), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? FEW, FEW)),
      });
    case 'object':
      return validObject(schema, pools);
    default:
      throw new Error(`schema type ${types[0]} has no arbitrary`);
  }
}

/** An object with the schema's properties (the required ones always), and free keys when it allows them. */
function validObject(schema: JsonSchema, pools: ValuePools): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) model[name] = validValue(property, pools, name);
  const known = fc.record(model, { requiredKeys: schema.required ?? [] });
  if (schema.additionalProperties === false) return known;
  const extra = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  return fc.tuple(extra, known).map(([free, named]) => ({ ...free, ...named }));
}

/** A string of the schema's format, pattern and length. */
function validString(schema: JsonSchema, pools: ValuePools, name: string): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  const fits = (s: string) => s.length >= min && s.length <= max;
  switch (schema.format) {
    case 'uuid': {
      const ids = pools.idsFor(name);
      return ids.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ids) }, fc.uuid()) : fc.uuid();
    }
    case 'date-time':
      return isoDateTime.arbitrary;
    case 'date':
      return isoDate.arbitrary;
    case 'date-or-date-time':
      return fc.oneof(isoDateTime.arbitrary, isoDate.arbitrary);
    case 'email':
      return fc
        .oneof({ weight: 9, arbitrary: fc.emailAddress() }, fc.constant(`${incompressible(3000)}@long.example`))
        .filter(fits);
    case 'uri':
      return fc
        .array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/), { maxLength: 3 })
        .map((segments) => `${pools.urlBase}/${segments.join('/')}`);
  }
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern);
    const matching = fc.stringMatching(pattern).filter(fits);
    // A pattern that dates match (2026-93-22 matches \d{4}-\d{2}-\d{2} too): mostly real dates.
    const real = [isoDateTime, isoDate].filter((arb) => pattern.test(arb.example));
    return real.length ? fc.oneof(matching, { weight: 2, arbitrary: fc.oneof(...real.map((r) => r.arbitrary)) }) : matching;
  }
  const plain = fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, SHORT)), unit: 'grapheme' });
  const options: fc.WeightedArbitrary<string>[] = [{ weight: 20, arbitrary: plain }];
  for (const group of pools.words) {
    const words = group.filter(fits);
    if (words.length) options.push({ weight: 10, arbitrary: fc.constantFrom(...words) });
  }
  // Rare: a long text makes a body of up to 800 KB.
  const long = LONG_VALID.filter(fits);
  if (long.length) options.push({ weight: 2, arbitrary: fc.constantFrom(...long) });
  return fc.oneof(...options);
}

/** A query string's parameters as strings: each property of the query schema, optional unless required. */
export function validQuery(schema: JsonSchema, pools: ValuePools): fc.Arbitrary<Record<string, string>> {
  const model: Record<string, fc.Arbitrary<string>> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    model[name] = validValue(property, pools, name).map((v) => String(v));
  }
  return fc.record(model, { requiredKeys: schema.required ?? [] });
}
