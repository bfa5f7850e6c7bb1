// The compatibility rule of a published event schema (docs/events.md, "Evolving an event"): within
// one event version, the schema generated now must accept every value the published one accepted.
// Every message ever published under that version then still validates against its dataschema,
// and a consumer written against it keeps every field it reads. Removing or renaming a field,
// narrowing a type, an enum or a format, and making a field required all break that; adding an
// optional field, or widening, does not.
//
// Hand-written for the JSON Schema vocabulary the catalogue uses (type, enum/const, format, pattern,
// string and number bounds, items, properties/required/additionalProperties, anyOf): the one
// library that decides schema inclusion (json-schema-diff) ignores enum, const, format and
// pattern, which are most of what our payloads constrain. It is conservative: a change of a
// keyword it does not know is reported as breaking, never waved through.

/** A JSON Schema as plain JSON. */
export type JsonSchema = Record<string, unknown>;

/** Keywords that describe and never constrain. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  '$comment',
  '$id',
  '$schema',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
/** Keywords this checker compares; any other that changes is reported. */
const UNDERSTOOD = new Set([
  'type',
  'enum',
  'const',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'anyOf',
]);

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const at = (path: string) => path || '(root)';

/** Whether a schema constrains nothing (only annotations). */
function unconstrained(s: unknown): boolean {
  return s === true || (isObject(s) && Object.keys(s).every((k) => ANNOTATIONS.has(k)));
}

function typesOf(s: JsonSchema): Set<string> | undefined {
  if (s.type === undefined) return undefined;
  return new Set(([] as string[]).concat(s.type as string | string[]));
}

function valuesOf(s: JsonSchema): unknown[] | undefined {
  if (s.const !== undefined) return [s.const];
  return Array.isArray(s.enum) ? s.enum : undefined;
}

/**
 * The ways `next` refuses a value `published` accepts (empty: `next` is a compatible evolution).
 * Each problem names the JSON path of the field and what changed.
 */
export function breakingChanges(published: unknown, next: unknown, path = ''): string[] {
  if (unconstrained(next)) return [];
  if (next === false) return unconstrained(published) || published !== false ? [`${at(path)}: now accepts nothing`] : [];
  if (!isObject(next)) return [`${at(path)}: not a schema object`];
  if (unconstrained(published)) return [`${at(path)}: constrained where the published schema accepted anything`];
  if (!isObject(published)) return published === false ? [] : [`${at(path)}: published schema is not a schema object`];

  // Alternatives: every published alternative must be accepted by the next schema (or one of its alternatives).
  if (Array.isArray(published.anyOf)) {
    const rest = { ...published };
    delete rest.anyOf;
    return (published.anyOf as unknown[]).flatMap((alt) =>
      breakingChanges(isObject(alt) ? { ...rest, ...alt } : alt, next, path),
    );
  }
  if (Array.isArray(next.anyOf)) {
    const rest = { ...next };
    delete rest.anyOf;
    const tries = (next.anyOf as unknown[]).map((alt) =>
      breakingChanges(published, isObject(alt) ? { ...rest, ...alt } : alt, path),
    );
    return tries.some((t) => !t.length)
      ? []
      : [`${at(path)}: no alternative accepts what the published schema accepts (${tries[0]?.join('; ')})`];
  }

  const problems: string[] = [];
  const fail = (what: string) => problems.push(`${at(path)}: ${what}`);

  const [oldTypes, newTypes] = [typesOf(published), typesOf(next)];
  if (newTypes) {
    if (!oldTypes) fail(`type narrowed to ${[...newTypes].join('|')}`);
    else {
      const lost = [...oldTypes].filter((t) => !newTypes.has(t) && !(t === 'integer' && newTypes.has('number')));
      if (lost.length)
        fail(`type narrowed: ${lost.join('|')} no longer allowed (${[...oldTypes].join('|')} -> ${[...newTypes].join('|')})`);
    }
  }
  const [oldValues, newValues] = [valuesOf(published), valuesOf(next)];
  if (newValues) {
    if (!oldValues) fail(`narrowed to the values ${JSON.stringify(newValues)}`);
    else {
      const lost = oldValues.filter((v) => !newValues.some((n) => same(n, v)));
      if (lost.length) fail(`enum narrowed: ${JSON.stringify(lost)} no longer allowed`);
    }
  }
  for (const k of ['format', 'pattern', 'multipleOf'] as const)
    if (next[k] !== undefined && !same(next[k], published[k]))
      fail(`${k} narrowed (${JSON.stringify(published[k])} -> ${JSON.stringify(next[k])})`);
  for (const k of ['minLength', 'minimum', 'exclusiveMinimum', 'minItems'] as const)
    if (typeof next[k] === 'number' && !(typeof published[k] === 'number' && published[k] >= next[k]))
      fail(`${k} raised to ${next[k]}`);
  for (const k of ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems'] as const)
    if (typeof next[k] === 'number' && !(typeof published[k] === 'number' && published[k] <= next[k]))
      fail(`${k} lowered to ${next[k]}`);
  if (next.uniqueItems === true && published.uniqueItems !== true) fail('items must now be unique');

  if (next.items !== undefined || published.items !== undefined)
    problems.push(...breakingChanges(published.items ?? {}, next.items ?? {}, `${path}[]`));

  problems.push(...objectChanges(published, next, path));

  for (const k of Object.keys(next))
    if (!ANNOTATIONS.has(k) && !UNDERSTOOD.has(k) && !same(next[k], published[k]))
      fail(`keyword ${k} changed; not provably compatible`);
  return problems;
}

/** properties, required and additionalProperties. */
function objectChanges(published: JsonSchema, next: JsonSchema, path: string): string[] {
  const problems: string[] = [];
  const oldProps = (isObject(published.properties) ? published.properties : {}) as Record<string, unknown>;
  const newProps = (isObject(next.properties) ? next.properties : {}) as Record<string, unknown>;
  const oldRequired = new Set((published.required as string[] | undefined) ?? []);
  const oldClosed = published.additionalProperties === false;
  const field = (name: string) => (path ? `${path}.${name}` : name);

  for (const [name, schema] of Object.entries(oldProps)) {
    if (!Object.hasOwn(newProps, name)) problems.push(`${field(name)}: field removed (or renamed)`);
    else problems.push(...breakingChanges(schema, newProps[name], field(name)));
  }
  for (const [name, schema] of Object.entries(newProps)) {
    if (Object.hasOwn(oldProps, name)) continue;
    // A field new to a closed object was never in a published message; to an open one it was free.
    if (!oldClosed)
      problems.push(
        ...breakingChanges(isObject(published.additionalProperties) ? published.additionalProperties : {}, schema, field(name)),
      );
  }
  for (const name of (next.required as string[] | undefined) ?? []) {
    if (oldRequired.has(name)) continue;
    problems.push(
      Object.hasOwn(oldProps, name)
        ? `${field(name)}: optional field made required`
        : `${field(name)}: new required field (messages published before lack it; add it as optional)`,
    );
  }
  if (next.additionalProperties !== undefined && next.additionalProperties !== true) {
    if (next.additionalProperties === false) {
      if (!oldClosed) problems.push(`${at(path)}: closed to fields it allowed before`);
    } else if (!oldClosed) {
      problems.push(...breakingChanges(published.additionalProperties ?? {}, next.additionalProperties, `${path}.*`));
    }
  }
  return problems;
}
