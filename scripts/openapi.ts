// Writes docs/openapi.json and the SDK's generated sources (packages/client/src/generated: types and
// operation table) from the operation table, OPERATIONS of @cluster/contracts, as the gateway serves
// it (`npm run openapi`); test/openapi.test.ts and test/sdk-generated.test.ts check both are current.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi, routes } from '@cluster/gateway';
import { REASON_STATUS } from '@cluster/platform';
import { generateClientSources } from '../packages/client/scripts/generate.ts';

const root = path.resolve(import.meta.dirname, '..');
const document = buildOpenApi(routes);
const client = await generateClientSources(document, Object.keys(REASON_STATUS));
const written = [
  ['docs/openapi.json', `${JSON.stringify(document, null, 2)}\n`],
  ...client.map(({ file, text }) => [`packages/client/${file}`, text] as const),
] as const;
for (const [file, text] of written) {
  writeFileSync(path.join(root, file), text);
  process.stdout.write(`wrote ${file}\n`);
}
