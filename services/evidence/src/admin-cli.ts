// `npm run --silent admin -- evidence-key rotate --org ORG` (scripts/admin.mjs hands evidence-key
// commands here): creates or rotates an organization's evidence key against the evidence schema
// of DATABASE_URL, prints {"key","prefix"} once, and records the rotation in the core's audit trail
// (AuditService over Connect at CORE_URL, with the evidence service's token). Errors on stderr,
// exit 1; a usage error (another command, an unknown option) one line, exit 2; `--help` the usage;
// a rotation whose audit record could not be written (the core unreachable) still prints the key
// (the old one is already revoked) and exits 3 with the reason on stderr.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createClient } from '@connectrpc/connect';
import { assertMigrated, createDb, migrate } from '@cluster/db';
import { createRpcTransport, createTokenSigner } from '@cluster/platform';
import { AuditService } from '@cluster/proto';
import { createEvidenceKeyService } from './features/keys/service.ts';
import { createEvidenceKeyStore } from './features/keys/store.ts';
import { readEvidenceConfig } from './config.ts';
import { evidenceKeyBox } from './features/keys/box.ts';
import { migrations } from './migrations/index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USAGE = "  evidence-key rotate  --org ORG   (creates or rotates the organization's evidence key)\n";

/** The command line; `--help`, or a usage error printed as one line, exits here. */
function commandLine() {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, options: { org: { type: 'string' } } });
    if (parsed.positionals.join(' ') === 'evidence-key rotate') return parsed;
    process.stderr.write(`unknown command "${parsed.positionals.join(' ')}" (usage: evidence-key rotate --org ORG)\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)} (usage: evidence-key rotate --org ORG)\n`);
  }
  process.exit(2);
}

/** The settings; one that is refused (outside development: packages/platform/src/config.ts) is one line, exit 1. */
function settings() {
  try {
    return readEvidenceConfig();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

const { values } = commandLine();
const config = settings();

/** Records the rotation as the operator's (no user, no key: actorType admin_cli); retried with one id, so recorded once. */
async function audit(organizationId: string, rotation: { prefix: string; revokedPrefix?: string }): Promise<void> {
  const core = createClient(
    AuditService,
    createRpcTransport(config.coreUrl, { sign: createTokenSigner(config.serviceKeys), audience: 'core' }),
  );
  const record = {
    id: randomUUID(),
    actor: { organizationId, userId: '', apiKeyId: '', role: '', scope: 'organization', permissions: [] },
    entityType: 'evidence_key',
    action: rotation.revokedPrefix ? 'rotated' : 'created',
    entityId: organizationId,
    metadata: { prefix: rotation.prefix, ...(rotation.revokedPrefix ? { revokedPrefix: rotation.revokedPrefix } : {}) },
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return void (await core.recordAuditEvent(record, { timeoutMs: 5_000 }));
    } catch (err) {
      if (attempt === 3) throw err;
      await new Promise((r) => setTimeout(r, 1_000 * attempt));
    }
  }
}

try {
  if (!values.org || !UUID.test(values.org)) throw new Error('--org must be an organization id');
  if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
  const db = createDb(config.databaseUrl, { schema: 'evidence', application: 'evidence-admin', poolMax: 1 });
  let rotation: Awaited<ReturnType<ReturnType<typeof createEvidenceKeyService>['rotate']>>;
  try {
    // A first local rotation may come before the service's first start; in a pod (MIGRATE_ON_START=false,
    // the evidence role, which may not run DDL) the migration Job has run.
    if (config.migrateOnStart) await migrate(db, 'evidence', migrations);
    else await assertMigrated(db, 'evidence', migrations);
    const keys = createEvidenceKeyService(createEvidenceKeyStore(db), evidenceKeyBox(config));
    rotation = await keys.rotate(values.org);
    process.stdout.write(`${JSON.stringify({ key: rotation.key, prefix: rotation.prefix })}\n`);
  } finally {
    await db.destroy();
  }
  try {
    await audit(values.org, rotation);
  } catch (err) {
    process.stderr.write(
      `the key is rotated, but its audit record could not be written to the core at ${config.coreUrl}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exitCode = 3;
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
