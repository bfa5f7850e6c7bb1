// `npm run api-baseline`: accepts the published OpenAPI document (docs/openapi.json) as the new
// v1 baseline, on purpose, once it is an additive change of the old one. A breaking change is
// refused here as it is in `npm test`: within v1 it cannot be accepted, it goes to /api/v2
// (docs/api-evolution.md).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BASELINE, PUBLISHED, breakingChanges, describeChanges, readDocument } from './lib/api-evolution.ts';

const published = readDocument(PUBLISHED);
const changes = await breakingChanges(readDocument(BASELINE), published);
if (changes.length) {
  process.stderr.write(
    `refused: docs/openapi.json breaks v1 clients (${changes.length} change(s)); ` +
      `make the change additive, or put it under /api/v2:\n${describeChanges(changes)}\n`,
  );
  process.exit(1);
}
writeFileSync(BASELINE, `${JSON.stringify(published, null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), BASELINE)}: the published document is the v1 baseline\n`);
