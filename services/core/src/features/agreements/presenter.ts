import type { JsonObject } from '@bufbuild/protobuf';
import { AGREEMENT_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { AgreementRow } from './store.ts';

/** What leaves the core for an agreement (spec Agreement plus signedAt; never the signed document). */
export function presentAgreement(row: AgreementRow): JsonObject {
  return presentFields(row, AGREEMENT_FIELDS);
}
