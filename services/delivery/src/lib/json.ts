import type { JsonObject } from '@bufbuild/protobuf';

/** Converts a database row into JSON for an RPC answer: Dates to ISO strings, undefined dropped. */
export function toJson(row: Record<string, unknown>, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) {
    const v = row[k];
    if (v === undefined) continue;
    out[k] = v instanceof Date ? v.toISOString() : (v as JsonObject[string]);
  }
  return out;
}

/** One page of a list, in the shape of the RPC list response. */
export interface Page {
  data: JsonObject[];
  page: number;
  pageSize: number;
  total: number;
}

/** Normalises page arguments from an RPC (the gateway has validated them). */
export function pageArgs(req: { page: number; pageSize: number }): { page: number; pageSize: number } {
  return { page: req.page > 0 ? req.page : 1, pageSize: req.pageSize > 0 ? Math.min(req.pageSize, 100) : 25 };
}
