import type { JsonObject } from '@bufbuild/protobuf';

/** A request Struct (body or query) as a plain record; absent means empty. */
export function bodyOf(v: JsonObject | undefined): Record<string, unknown> {
  return (v ?? {}) as Record<string, unknown>;
}
