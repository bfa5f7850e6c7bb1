import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

/** A column's value as a typed row holds it: JSON (jsonb, text, numbers, booleans) or a timestamp. */
export type ColumnValue = JsonValue | Date | undefined;

/**
 * The allow-list presenter of every core resource: exactly `fields` of `row`, in that order,
 * timestamps as ISO strings and an absent value as null. A column the list does not name
 * never leaves the core. Pure.
 */
export function presentFields<K extends string>(row: { readonly [P in K]?: ColumnValue }, fields: readonly K[]): JsonObject {
  const out: JsonObject = {};
  for (const f of fields) {
    const v = row[f];
    out[f] = v instanceof Date ? v.toISOString() : (v ?? null);
  }
  return out;
}

/**
 * Whether a value built or parsed elsewhere (a write's audit metadata, a code host's payload) is JSON:
 * a type guard, checked deeply. An undefined property counts as absent, as JSON.stringify and jsonb leave it out.
 */
export function isJsonValue(v: unknown): v is JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJsonValue);
  if (typeof v === 'object')
    return Object.getPrototypeOf(v) === Object.prototype && Object.values(v).every((x) => x === undefined || isJsonValue(x));
  return false;
}
