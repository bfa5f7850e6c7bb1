// `node services/delivery/dist/rebuild-stats.js` (built by `npm run build`; in the image too): writes the hourly
// statistics rollup (migration 019) of the last 8 days again from the delivery and attempt tables, as the migration's
// backfill did (docs/runbook.md, "Statistics after a rolling upgrade"), with the delivery service's own
// configuration (DATABASE_URL). Prints one JSON object: the rollup's rows and the time taken.
import { createDb } from '@cluster/db';
import { ConfigError } from '@cluster/platform';
import { readDeliveryConfig } from './config.ts';
import { rebuildStatsRollup } from './features/deliveries/stats-rollup.ts';

const config = readDeliveryConfig();
if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
const db = createDb(config.databaseUrl, { schema: 'delivery', application: 'delivery-rebuild-stats', poolMax: 2 });
try {
  const started = Date.now();
  const from = new Date(started - 8 * 86_400_000);
  await rebuildStatsRollup(db, from);
  const [{ n }] = (
    await db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM delivery.stats_hourly WHERE hour >= ?', [from])
  ).rows;
  process.stdout.write(`${JSON.stringify({ from: from.toISOString(), rows: n, ms: Date.now() - started })}\n`);
} finally {
  await db.destroy();
}
