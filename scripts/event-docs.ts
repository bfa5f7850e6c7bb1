// Writes the parts of docs/events.md and docs/asyncapi.yaml that come from the event catalogue
// (packages/contracts/src/event-catalogue.ts), and the per-type schemas of docs/events/schemas:
// `npm run event-docs`. test/event-docs.test.ts fails until the committed files are what this
// writes. It refuses to write a schema change that would break a published schema (scripts/lib/
// event-schemas.ts): such a change needs a new event version (docs/events.md, "Evolving an event").
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderAsyncApi, renderEventSchemas, renderEventsMarkdown } from './lib/event-docs.ts';
import { readPublishedSchemas, SCHEMAS_PATH, schemaCompatibilityProblems } from './lib/event-schemas.ts';

const problems = schemaCompatibilityProblems(readPublishedSchemas());
if (problems.length) {
  process.stderr.write(
    `Breaking changes to published event schemas (nothing written); publish a new event version instead:\n${problems.map((p) => `  ${p}\n`).join('')}`,
  );
  process.exit(1);
}

const docs = path.resolve(import.meta.dirname, '..', 'docs');
for (const [file, render] of [
  ['events.md', renderEventsMarkdown],
  ['asyncapi.yaml', renderAsyncApi],
] as const) {
  const target = path.join(docs, file);
  writeFileSync(target, render(readFileSync(target, 'utf8')));
  process.stdout.write(`wrote ${target}\n`);
}
mkdirSync(SCHEMAS_PATH, { recursive: true });
const schemas = renderEventSchemas();
for (const [file, text] of schemas) writeFileSync(path.join(SCHEMAS_PATH, file), text);
process.stdout.write(`wrote ${schemas.size} schemas under ${SCHEMAS_PATH}\n`);
