// Builds the SDK's dist (ESM and .d.ts), webhook-verify vendored: scripts/lib/vendored-build.mjs. Its only
// registry dependency is openapi-fetch. See docs/sdk.md, "Packaging".
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildVendored } from '../../../scripts/lib/vendored-build.mjs';

export { declarationImportsAsJs } from '../../../scripts/lib/vendored-build.mjs';

/** Builds packages/client/dist unless its sources are those of the last build. */
export const buildClient = () => buildVendored(path.resolve(import.meta.dirname, '..'), [import.meta.filename]);

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const built = buildClient();
  process.stderr.write(built ? '[client] dist built (webhook-verify vendored)\n' : '[client] dist is current\n');
}
