export { startDelivery } from './start.ts';
export { readDeliveryConfig } from './config.ts';
export { apiWrite, recordWrite } from './shared/write.ts';
