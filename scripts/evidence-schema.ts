// Writes docs/evidence.schema.json, the JSON Schema of a release's evidence package, from
// @cluster/contracts (`npm run evidence-schema`; test/evidence.test.ts checks it is current).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { EvidencePackage } from '@cluster/contracts';

const file = path.resolve(import.meta.dirname, '..', 'docs', 'evidence.schema.json');
const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'evidence.schema.json',
  title: 'EvidencePackage',
  ...(JSON.parse(JSON.stringify(EvidencePackage)) as object),
};
writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
