import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

const AGREEMENT_COLUMNS = ['id', 'projectId', 'title', 'status', 'signedAt', 'createdAt'] as const;

/** What leaves the core for an agreement (spec Agreement plus signedAt; never the signed document). */
export function presentAgreement(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(AGREEMENT_COLUMNS.map((c) => [c, row[c] ?? null])));
}
