/** Picks the keys of a body that are writable fields (absent keys stay absent: a PATCH changes only what it names). */
export function pickFields<K extends string>(body: object, fields: readonly K[]): Partial<Record<K, unknown>> {
  const out: Partial<Record<K, unknown>> = {};
  for (const f of fields) if (f in body) out[f] = Reflect.get(body, f);
  return out;
}

/** Names of fields whose value differs between two rows (deep for JSON). */
export function changedFields<K extends string>(
  before: { readonly [P in K]?: unknown },
  after: { readonly [P in K]?: unknown },
  fields: readonly K[],
): K[] {
  const norm = (v: unknown) => JSON.stringify(v instanceof Date ? v.toISOString() : (v ?? null));
  return fields.filter((f) => norm(before[f]) !== norm(after[f]));
}
