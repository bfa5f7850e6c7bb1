import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

/**
 * A validated body or query as the protobuf `Struct` (JsonObject) the backends take. The
 * values come from JSON.parse or the query string, so each is a JSON value; a value that
 * is not (a function, a bigint) is a bug and throws. Undefined properties are left out.
 */
export function toStruct(value: object): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJsonValue(v);
  return out;
}

function toJsonValue(v: unknown): JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(toJsonValue);
  if (typeof v === 'object') return toStruct(v);
  throw new TypeError(`not a JSON value: ${typeof v}`);
}
