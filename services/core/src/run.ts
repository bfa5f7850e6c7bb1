import { readCoreConfig } from './config.ts';
import { startCore } from './start.ts';

const { shutdown } = await startCore(readCoreConfig());
shutdown.installSignalHandlers();
