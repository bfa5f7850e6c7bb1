import { readGatewayConfig } from './config.ts';
import { startGateway } from './start.ts';

const { shutdown } = await startGateway(readGatewayConfig());
shutdown.installSignalHandlers();
