import { readDeliveryConfig } from './config.ts';
import { startDelivery } from './start.ts';

const { shutdown } = await startDelivery(readDeliveryConfig());
shutdown.installSignalHandlers();
