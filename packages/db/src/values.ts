/** True for a string shaped like a UUID (ids in paths that are not UUIDs are 404, never a database error). */
export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
}

/** Stringifies the jsonb columns of a row about to be written with knex (knex would send an array as a Postgres array). */
export function jsonbValues(values: Record<string, unknown>, jsonColumns: readonly string[]): Record<string, unknown> {
  const out = { ...values };
  for (const c of jsonColumns) if (out[c] !== null && out[c] !== undefined) out[c] = JSON.stringify(out[c]);
  return out;
}
