export { startDelivery } from './start.ts';
export { readDeliveryConfig } from './config.ts';
// The write path of webhook writes, for tests that queue audit records themselves (test/webhooks-audit.test.ts).
export { apiWrite, recordWrite } from './shared/write.ts';
