// Writes docs/openapi.json and @cluster/contracts' OPERATION_RULES from the gateway's route table
// (`npm run openapi`); test/openapi.test.ts and the gateway's operation-rules test check both are current.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi, operationRulesSource, routes } from '@cluster/gateway';

const root = path.resolve(import.meta.dirname, '..');
const written = [
  ['docs/openapi.json', `${JSON.stringify(buildOpenApi(routes), null, 2)}\n`],
  ['packages/contracts/src/operation-rules.ts', operationRulesSource(routes)],
] as const;
for (const [file, text] of written) {
  writeFileSync(path.join(root, file), text);
  process.stdout.write(`wrote ${file}\n`);
}
