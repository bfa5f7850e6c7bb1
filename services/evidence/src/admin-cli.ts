// `npm run --silent admin -- evidence-key rotate --org ORG` (scripts/admin.mjs hands evidence-key
// commands here): creates or rotates an organization's evidence key against the evidence schema
// of DATABASE_URL, and prints {"key","prefix"} once. Errors on stderr, exit 1.
import { parseArgs } from 'node:util';
import { createDb, migrate } from '@cluster/db';
import { createEvidenceKeyService } from './features/keys/service.ts';
import { createEvidenceKeyStore } from './features/keys/store.ts';
import { readEvidenceConfig } from './config.ts';
import { evidenceKeyBox } from './features/keys/box.ts';
import { migrations } from './migrations/index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const { positionals, values } = parseArgs({ allowPositionals: true, options: { org: { type: 'string' } } });
const config = readEvidenceConfig();
try {
  if (positionals.join(' ') !== 'evidence-key rotate') throw new Error('usage: evidence-key rotate --org ORG');
  if (!values.org || !UUID.test(values.org)) throw new Error('--org must be an organization id');
  if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
  const db = createDb(config.databaseUrl, { schema: 'evidence', application: 'evidence-admin', poolMax: 1 });
  try {
    await migrate(db, 'evidence', migrations); // a first rotation may come before the service's first start
    const keys = createEvidenceKeyService(createEvidenceKeyStore(db), evidenceKeyBox(config));
    const { key, prefix } = await keys.rotate(values.org);
    process.stdout.write(`${JSON.stringify({ key, prefix })}\n`);
  } finally {
    await db.destroy();
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
