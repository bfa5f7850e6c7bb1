// Writes docs/openapi.json, @cluster/contracts' OPERATION_RULES and the SDK's generated sources
// (packages/client/src/generated: types and operation table) from the gateway's route table
// (`npm run openapi`); test/openapi.test.ts, the gateway's operation-rules test and
// test/sdk-generated.test.ts check all of them are current.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi, operationRulesSource, routes } from '@cluster/gateway';
import { REASON_STATUS } from '@cluster/platform';
import { generateClientSources } from '../packages/client/scripts/generate.ts';

const root = path.resolve(import.meta.dirname, '..');
const document = buildOpenApi(routes);
const client = await generateClientSources(document, Object.keys(REASON_STATUS));
const written = [
  ['docs/openapi.json', `${JSON.stringify(document, null, 2)}\n`],
  ['packages/contracts/src/operation-rules.ts', operationRulesSource(routes)],
  ...client.map(({ file, text }) => [`packages/client/${file}`, text] as const),
] as const;
for (const [file, text] of written) {
  writeFileSync(path.join(root, file), text);
  process.stdout.write(`wrote ${file}\n`);
}
