export { startCore } from './start.ts';
export { readCoreConfig } from './config.ts';
export { runAdmin } from './admin/cli.ts';
export { createAdminOperations } from './admin/operations.ts';
