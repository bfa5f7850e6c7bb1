import fc from 'fast-check';
import { MANY_WORDS, incompressible, validQuery, validValue, type JsonSchema, type ValuePools } from './schema-arbitrary.ts';

/**
 * Hostile input for the fuzz test (test/fuzz.test.ts): values of the wrong type, NUL characters, numbers
 * at and past every bound, deep nesting, long strings, odd unicode, and the mutations that put them into
 * an otherwise valid body, query string or path. URLs among them point only at loopback, at port 0 or at
 * no valid port (valid ones point at the test's receiver), so a webhook made from one sends nothing off this machine.
 */

const RAW = Symbol('raw JSON text');

/** JSON text written into a body as is: a number JSON.stringify cannot write (1e400, -0), nesting too deep for it. */
interface RawJson {
  [RAW]: string;
}

const raw = (text: string): RawJson => ({ [RAW]: text });
const isRaw = (value: unknown): value is RawJson => typeof value === 'object' && value !== null && RAW in value;

/** A value as JSON text; raw parts are written as they are. */
export function toJsonText(value: unknown): string {
  if (isRaw(value)) return value[RAW];
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Percent-encodes text for a URL, byte for byte: a lone surrogate becomes its three (invalid UTF-8) bytes
 * where encodeURIComponent would throw, so the server sees exactly what a careless client sends.
 */
export function encodeComponent(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0xd800 || code > 0xdfff) out += encodeURIComponent(ch);
    else out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map(percent).join('');
  }
  return out;
}

const percent = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

const WRONG_TYPES: unknown[] = [null, true, false, 0, 1, -1, '', 'null', 'true', '1', [], {}, [null], { '': null }];
const NUMBERS: unknown[] = [
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e308,
  Number.MIN_VALUE,
  0.1,
  1.5,
  -0.5,
  raw('-0'),
  raw('1e400'),
  raw('-1e400'),
  raw('123456789012345678901234567890'),
  raw('1E2'),
  raw('0.10000000000000000000001'),
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '2147483648',
  '-0',
  '0x1F',
  ' 1',
  '１',
  '١٢',
];
/** Fragments a mutation inserts into a string, and strings of their own. */
const FRAGMENTS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\udc00b',
  '\u202eevil',
  '\u200f',
  '\u200b',
  '\ufeff',
  '😀',
  '👩‍👩‍👧',
  'e\u0301',
  '\uffff',
  '\u0085',
  '\u2028',
  'İ',
  'ß',
  "'",
  "''; DROP TABLE core.entries; --",
  '%',
  '_',
  '\\',
  '"',
  '*',
  ':*',
  '!',
  '|',
  '&',
  '(',
  '<>',
  '-',
  ' or ',
  '"unclosed',
  '$1',
  '{}',
  '../..',
  '<script>',
  ' ',
  '\t\n',
];
const DATES = [
  '0000-01-01T00:00:00Z',
  '+010000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-14:00',
  '0001-01-01T00:00:00+14:00',
  '2026-02-30',
  '2026-02-29T00:00:00Z',
  '2026-13-01',
  '2026-01-01T24:00:00Z',
  '2026-12-31T23:59:60Z',
  '2026-1-1',
  '1970-01-01T00:00:00.123456789Z',
  '2026-01-01T00:00:00+99:99',
  '2026-01-01T00:00:00',
];
const IDS = [
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '{6ba7b810-9dad-11d1-80b4-00c04fd430c8}',
  '6ba7b8109dad11d180b400c04fd430c8',
  '6ba7b810-9dad-11d1-80b4-00c04fd430c8 ',
  '6ba7b810-9dad-11d1-80b4-00c04fd430c',
];
const URLS = [
  'http://',
  'http://127.0.0.1:0/',
  'http://localhost:99999/',
  'http://[::1]:0/',
  'HTTP://127.0.0.1:0/x',
  'http://user:pass@127.0.0.1:0/',
  `http://127.0.0.1:0/${'a'.repeat(5000)}`,
  'javascript:alert(1)',
  'file:///etc/passwd',
  'mailto:a@b.example',
  'urn:x',
];
const EMAILS = ['a@', '@b', 'a@b', '"a b"@c.example', 'a@b..example', 'ü@ü.example', `${'a'.repeat(300)}@b.example`];
/** Long strings: 100k characters in one, two and three UTF-8 bytes, lone surrogates, 100k without repeats, 800 KB of distinct words. */
const LONG = [
  'a'.repeat(100_000),
  incompressible(100_000, 2),
  MANY_WORDS,
  'é'.repeat(100_000),
  '😀'.repeat(25_000),
  '\u200b'.repeat(50_000),
  '\ud800'.repeat(20_000),
];
/** A body past the 1 MiB limit. */
const PAST_BODY_LIMIT = 'x'.repeat(1_100_000);

/** A string of any UTF-16 code units, lone surrogates included. */
const codeUnits = fc.string({ unit: fc.nat(0xffff).map((c) => String.fromCharCode(c)), maxLength: 30 });

/** Nesting `levels` deep, as text (arrays or objects): JSON.stringify and the test's own stack stay out of it. */
const nestedText = (levels: number, asObject: boolean): RawJson =>
  raw(asObject ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}` : `${'['.repeat(levels)}${']'.repeat(levels)}`);

/** Nesting around the 32-level limit, as real objects. */
const nestedValue = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

/** One hostile value of any kind. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WRONG_TYPES) },
  { weight: 3, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 3, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 2, arbitrary: fc.constantFrom(...DATES, ...IDS, ...URLS, ...EMAILS) },
  { weight: 2, arbitrary: codeUnits },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG) },
  { weight: 1, arbitrary: fc.integer({ min: 28, max: 40 }).map(nestedValue) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 100, max: 5000 }), fc.boolean()).map(([n, o]) => nestedText(n, o)) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.bigInt().map((n) => raw(n.toString())) },
);

/** Keys a mutation adds to an object: prototype names, empty, NUL, lone surrogates, very long. */
const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '', 'a\u0000', '\ud800', '😀', 'k'.repeat(10_000)),
  fc.string({ maxLength: 8 }),
);

/** The text of a hostile value in a query string or a path. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !isRaw(value)) return toJsonText(value).slice(0, 20_000);
  return toJsonText(value);
}

type Path = (string | number)[];

/** One change to a valid value; `at` picks the place (modulo the places the value has). */
interface Mutation {
  kind: 'replace' | 'decorate' | 'add-key' | 'drop-key';
  at: number;
  value: unknown;
  fragment: string;
  key: string;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('replace', 'decorate', 'add-key', 'drop-key'),
  at: fc.nat(),
  value: hostileValue,
  fragment: fc.constantFrom(...FRAGMENTS),
  key: hostileKey,
});

/** Every place of a value (itself, its items and properties, down), raw parts excluded. */
function places(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((item, i) => places(item, [...path, i], out));
  else if (typeof value === 'object' && value !== null && !isRaw(value)) {
    for (const [k, v] of Object.entries(value)) places(v, [...path, k], out);
  }
  return out;
}

function valueAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
}

/** Sets a property as an own one, even `__proto__`. */
function define(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `root` with the value at `path` replaced (in place below the root). */
function replaced(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  define(valueAt(root, path.slice(0, -1)) as object, path[path.length - 1], value);
  return root;
}

/** A hostile value inserted into a body: a copy, so later mutations never change the shared constants. */
const fresh = (value: unknown): unknown => (isRaw(value) ? value : structuredClone(value));

/** Applies one mutation to a (copied) value. */
function applyMutation(root: unknown, m: Mutation): unknown {
  const all = places(root);
  const path = all[m.at % all.length];
  const target = valueAt(root, path);
  const isObject = typeof target === 'object' && target !== null && !Array.isArray(target) && !isRaw(target);
  if (m.kind === 'decorate' && typeof target === 'string') {
    const cut = m.at % (target.length + 1);
    return replaced(root, path, target.slice(0, cut) + m.fragment + target.slice(cut));
  }
  if (m.kind === 'add-key' && isObject) {
    define(target, m.key, fresh(m.value));
    return root;
  }
  if (m.kind === 'drop-key' && isObject) {
    const keys = Object.keys(target);
    if (keys.length) delete (target as Record<string, unknown>)[keys[m.at % keys.length]];
    return root;
  }
  return replaced(root, path, fresh(m.value));
}

/** None (two cases in five: the request is valid, and goes deep), or one to three mutations. */
function someOf<M>(change: fc.Arbitrary<M>): fc.Arbitrary<M[]> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<M[]>([]) },
    { weight: 3, arbitrary: fc.array(change, { minLength: 1, maxLength: 3 }) },
  );
}

/**
 * The JSON text of a valid value with none or up to three mutations (hostile values put anywhere in it):
 * what bodyText draws from a schema, and the code-host fuzz from GitHub's example payloads.
 */
export function mutatedJsonText(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc
    .tuple(valid, someOf(mutation))
    .map(([value, changes]) => toJsonText(changes.reduce(applyMutation, structuredClone(value))));
}

/** Bodies that are no JSON object at all, or no JSON. */
const BROKEN_BODIES = [
  '{',
  '}',
  'nul',
  '"text"',
  '[]',
  'null',
  '0',
  '{"a":1,"a":2}',
  '\ufeff{}',
  '{} {}',
  '{"a":}',
  "{'a':1}",
  '[1,]',
];

/**
 * The text of a request body for a schema: a valid body with up to three mutations, sometimes cut short,
 * sometimes replaced by a body that is not an object or not JSON.
 */
export function bodyText(schema: JsonSchema, pools: ValuePools): fc.Arbitrary<string> {
  const mutated = mutatedJsonText(validValue(schema, pools));
  return fc.oneof(
    { weight: 12, arbitrary: mutated },
    { weight: 1, arbitrary: fc.tuple(mutated, fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1))) },
    { weight: 1, arbitrary: fc.constantFrom(...BROKEN_BODIES, PAST_BODY_LIMIT) },
  );
}

/** Garbage written into a query string as is, unencoded. */
const RAW_QUERY_TAILS = [
  '%',
  '%E0%A4%A=1',
  'a=%ZZ',
  '=',
  '&&&',
  'a[b]=1',
  '__proto__=1',
  'constructor=1',
  'page[]=1',
  '%00=1',
  'q',
  '?',
];

/** One change to a query's parameter list; `at` picks the parameter. */
interface QueryMutation {
  kind: 'replace' | 'decorate' | 'add' | 'repeat' | 'drop' | 'tail';
  at: number;
  value: unknown;
  fragment: string;
  key: string;
  tail: string;
}

const queryMutation: fc.Arbitrary<QueryMutation> = fc.record({
  kind: fc.constantFrom('replace', 'decorate', 'add', 'repeat', 'drop', 'tail'),
  at: fc.nat(),
  value: hostileValue,
  fragment: fc.constantFrom(...FRAGMENTS),
  key: hostileKey,
  tail: fc.constantFrom(...RAW_QUERY_TAILS),
});

/** A query's text after the mutations: parameters percent-encoded, raw tails appended as they are. */
function queryTextOf(params: [string, string][], changes: QueryMutation[]): string {
  const list = [...params];
  const tails: string[] = [];
  for (const m of changes) {
    const i = list.length ? m.at % list.length : -1;
    if (m.kind === 'tail') tails.push(m.tail);
    else if (m.kind === 'add' || i < 0) list.push([m.key, asText(m.value)]);
    else if (m.kind === 'replace') list[i] = [list[i][0], asText(m.value)];
    else if (m.kind === 'decorate') list[i] = [list[i][0], list[i][1] + m.fragment];
    else if (m.kind === 'repeat') list.push([list[i][0], asText(m.value)]);
    else list.splice(i, 1);
  }
  return [...list.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`), ...tails].join('&');
}

/** A query string (without `?`) for a route's query schema, or for none: valid parameters, then up to three mutations. */
export function queryText(schema: JsonSchema | undefined, pools: ValuePools): fc.Arbitrary<string> {
  const valid = schema ? validQuery(schema, pools) : fc.constant({});
  return fc.tuple(valid, someOf(queryMutation)).map(([params, changes]) => queryTextOf(Object.entries(params), changes));
}

/** Path segments that are no id: encoded garbage, and encodings a server must not trip on. */
const RAW_SEGMENTS = [
  '%E0%A4%A',
  '%00',
  '%',
  '%zz',
  '%2F',
  '%252F',
  '..',
  '.',
  '%2e%2e',
  'a%2Fb',
  '%C0%AF',
  '%ED%A0%80',
  '',
  'null',
  '-1',
  '1e308',
];

/** A value for a :param of a path: mostly `own` ids (the org's records of that kind), else random uuids and garbage. */
export function pathSegment(own: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: own.length ? fc.constantFrom(...own) : fc.uuid() },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: hostileValue.map((v) => encodeComponent(asText(v).slice(0, 2000))) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  );
}
