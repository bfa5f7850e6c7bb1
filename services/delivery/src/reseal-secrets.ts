// `node services/delivery/dist/reseal-secrets.js` (built by `npm run build`; in the image too): re-seals every stored webhook
// signing secret under the current key of WEBHOOK_SECRET_KEY (docs/runbook.md, "Rotate a
// sealing key"), with the delivery service's own configuration (DATABASE_URL, the keyring).
// Prints one JSON object; exit code 1 when some secret opened under no listed key.
import { createDb } from '@cluster/db';
import { ConfigError } from '@cluster/platform';
import { DEV_SECRET_KEY_MATERIAL, readDeliveryConfig } from './config.ts';
import { resealSecrets } from './features/subscriptions/reseal.ts';
import { createSubscriptionStore } from './features/subscriptions/store.ts';
import { createWebhookSecretBox } from './shared/webhook-secret-box.ts';

const config = readDeliveryConfig();
if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
const db = createDb(config.databaseUrl, { schema: 'delivery', application: 'delivery-reseal', poolMax: 2 });
try {
  const box = createWebhookSecretBox(config.secretKeys ?? [DEV_SECRET_KEY_MATERIAL]);
  const report = await resealSecrets(createSubscriptionStore(db), box);
  process.stdout.write(`${JSON.stringify({ keyIds: box.keyIds, ...report })}\n`);
  if (report.unopenable.length > 0) process.exitCode = 1;
} finally {
  await db.destroy();
}
