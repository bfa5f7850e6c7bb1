import type { JsonObject } from '@bufbuild/protobuf';
import { AGREEMENT_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for an agreement (spec Agreement plus signedAt; never the signed document). */
export function presentAgreement(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(AGREEMENT_FIELDS.map((c) => [c, row[c] ?? null])));
}
