// Builds the CLI's dist (ESM; dist/cli.js is the `cluster` bin), webhook-verify vendored:
// scripts/lib/vendored-build.mjs. It has no registry dependency. See docs/sdk.md, "Packaging".
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildVendored } from '../../../scripts/lib/vendored-build.mjs';

const HERE = path.resolve(import.meta.dirname, '..');

/** Builds packages/cli/dist unless its sources are those of the last build; the bin is made executable. */
export function buildCli() {
  const built = buildVendored(HERE, [import.meta.filename]);
  chmodSync(path.join(HERE, 'dist', 'cli.js'), 0o755);
  return built;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const built = buildCli();
  process.stderr.write(built ? '[cli] dist built (webhook-verify vendored)\n' : '[cli] dist is current\n');
}
