export { startDelivery } from './start.ts';
export { readDeliveryConfig } from './config.ts';
