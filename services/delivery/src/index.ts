export { startDelivery } from './start.ts';
export { readDeliveryConfig } from './config.ts';
export { queueAudit } from './audit/forwarder.ts';
