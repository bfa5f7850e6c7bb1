export { startEvidence } from './start.ts';
export { DEV_EVIDENCE_SIGNING_SEED, readEvidenceConfig, type EvidenceConfig } from './config.ts';
