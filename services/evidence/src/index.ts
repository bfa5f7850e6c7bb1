export { startEvidence } from './start.ts';
export { readEvidenceConfig } from './config.ts';
