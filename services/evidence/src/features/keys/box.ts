import { createSecretBox } from '@cluster/platform';
import { DEV_EVIDENCE_KEY_MATERIAL, type EvidenceConfig } from '../../config.ts';

/** The keyring that seals evidence keys at rest (EVIDENCE_SECRET_KEY): the service's and the admin CLI's. */
export function evidenceKeyBox(config: Pick<EvidenceConfig, 'secretKeys'>) {
  return createSecretBox(config.secretKeys ?? [DEV_EVIDENCE_KEY_MATERIAL], {
    salt: 'cluster.evidence',
    info: 'evidence-key-at-rest:v1',
  });
}
