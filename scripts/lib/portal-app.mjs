// Builds the integrator portal (apps/portal, React + Vite; docs/portal.md) into
// services/gateway/dist/portal, which the gateway serves under /portal. Skipped when its sources
// (and the SDK's, which it imports) are unchanged since the last build: their hash is stamped there.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

export async function buildPortalApp(root) {
  const app = path.join(root, 'apps', 'portal');
  const outDir = path.join(root, 'services', 'gateway', 'dist', 'portal');
  const sources = [
    ...filesUnder(path.join(app, 'src')),
    ...['index.html', 'vite.config.ts', 'package.json'].map((f) => path.join(app, f)),
    ...filesUnder(path.join(root, 'packages', 'client', 'src')).filter((f) => !f.endsWith('.test.ts')),
    import.meta.filename,
  ].sort();
  const hash = createHash('sha256');
  for (const f of sources) hash.update(path.relative(root, f)).update(readFileSync(f));
  const digest = hash.digest('hex');
  const stamp = path.join(outDir, '.sources-sha256');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return false;
  const { build } = await import('vite');
  await build({ root: app, configFile: path.join(app, 'vite.config.ts') });
  writeFileSync(stamp, digest);
  return true;
}
