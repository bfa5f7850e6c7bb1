import { readEvidenceConfig } from './config.ts';
import { startEvidence } from './start.ts';

const { shutdown } = await startEvidence(readEvidenceConfig());
shutdown.installSignalHandlers();
