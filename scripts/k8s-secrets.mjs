// Writes the env files a kustomize overlay's secretGenerator reads (docs/deploy.md):
//
//   node scripts/k8s-secrets.mjs k8s/overlays/dev [--database-url URL] [--redis-url URL] [--force]
//
// DIR/secrets.env       -> Secret cluster-secrets: DATABASE_URL, REDIS_URL, the sealing keys (webhook, idempotency, evidence)
//                          (32 random bytes each) and SERVICE_PUBLIC_KEYS
// DIR/signing-keys.env  -> Secret service-signing-keys: one Ed25519 seed per service, and evidence-platform:
//                          the seed that signs evidence packages (EVIDENCE_SIGNING_KEY, docs/evidence.md)
// Both files are git-ignored. An existing file is kept unless --force: regenerating sealing keys
// would orphan every sealed secret (docs/runbook.md, "Rotate a sealing key").
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateServiceKeys } from './lib/service-keys.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'database-url': { type: 'string', default: 'postgres://app:app@postgres-rw.postgres.svc:5432/feedback' },
    'redis-url': { type: 'string', default: 'redis://redis.redis.svc:6379' },
    force: { type: 'boolean', default: false },
  },
});
const dir = positionals[0];
if (!dir) {
  process.stderr.write('usage: node scripts/k8s-secrets.mjs <overlay dir> [--database-url URL] [--redis-url URL] [--force]\n');
  process.exit(2);
}
const keys = generateServiceKeys();
const sealingKey = () => randomBytes(32).toString('base64');
const files = {
  'secrets.env': {
    DATABASE_URL: values['database-url'],
    REDIS_URL: values['redis-url'],
    WEBHOOK_SECRET_KEY: sealingKey(),
    IDEMPOTENCY_SECRET_KEY: sealingKey(),
    EVIDENCE_SECRET_KEY: sealingKey(),
    CODEHOST_SECRET_KEY: sealingKey(),
    SERVICE_PUBLIC_KEYS: keys.SERVICE_PUBLIC_KEYS,
  },
  'signing-keys.env': { ...keys.signingKeys, 'evidence-platform': randomBytes(32).toString('base64') },
};
for (const [name, entries] of Object.entries(files)) {
  const file = path.join(dir, name);
  if (existsSync(file) && !values.force) {
    process.stderr.write(`${file} exists: kept (--force replaces it)\n`);
    continue;
  }
  const body = Object.entries(entries)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  writeFileSync(file, `${body}\n`, { mode: 0o600 });
  process.stdout.write(`wrote ${file}\n`);
}
