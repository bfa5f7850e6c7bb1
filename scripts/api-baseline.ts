// `npm run api-baseline`: accepts the published OpenAPI document (docs/openapi.json) as the new
// v1 baseline, on purpose, once it is an additive change of the old one. A breaking change is
// refused here as it is in `npm test`: within v1 it goes to /api/v2 (docs/api-evolution.md).
//
// `-- --accept <oasdiff check id>` (repeatable) accepts the changes of that check after review,
// for a change oasdiff cannot see is additive (an answer that differs only for callers of a new,
// opt-in input). Each such acceptance is recorded with its reason in docs/api-evolution.md.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BASELINE, PUBLISHED, breakingChanges, describeChanges, readDocument } from './lib/api-evolution.ts';

const { values } = parseArgs({ options: { accept: { type: 'string', multiple: true, default: [] } } });
const published = readDocument(PUBLISHED);
const changes = await breakingChanges(readDocument(BASELINE), published);
const accepted = changes.filter((c) => values.accept.includes(c.id));
const refused = changes.filter((c) => !values.accept.includes(c.id));
if (refused.length) {
  process.stderr.write(
    `refused: docs/openapi.json breaks v1 clients (${refused.length} change(s)); ` +
      `make the change additive, or put it under /api/v2:\n${describeChanges(refused)}\n`,
  );
  process.exit(1);
}
if (accepted.length)
  process.stdout.write(`accepted on review (record why in docs/api-evolution.md):\n${describeChanges(accepted)}\n`);
writeFileSync(BASELINE, `${JSON.stringify(published, null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), BASELINE)}: the published document is the v1 baseline\n`);
