import type { JsonObject } from '@bufbuild/protobuf';

/** Converts a database row into JSON: Dates to ISO strings, undefined dropped. */
export function toJson(row: Record<string, unknown>, omit: readonly string[] = []): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(row)) {
    if (omit.includes(k) || v === undefined) continue;
    out[k] = v instanceof Date ? v.toISOString() : (v as JsonObject[string]);
  }
  return out;
}

/** Picks the supplied keys of a body that are columns; JSON values are stringified for jsonb. */
export function pickColumns(body: Record<string, unknown>, columns: readonly string[], jsonColumns: readonly string[] = []) {
  const out: Record<string, unknown> = {};
  for (const c of columns) {
    if (!(c in body)) continue;
    const v = body[c];
    out[c] = jsonColumns.includes(c) && v !== null && v !== undefined ? JSON.stringify(v) : v;
  }
  return out;
}

/** Names of fields whose value differs between two rows (deep for JSON). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>, fields: readonly string[]): string[] {
  const norm = (v: unknown) => JSON.stringify(v instanceof Date ? v.toISOString() : (v ?? null));
  return fields.filter((f) => norm(before[f]) !== norm(after[f]));
}
