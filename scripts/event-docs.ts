// Writes the parts of docs/events.md and docs/asyncapi.yaml that come from the event catalogue
// (packages/contracts/src/event-catalogue.ts): `npm run event-docs`. test/event-docs.test.ts fails
// until the committed files are what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderAsyncApi, renderEventsMarkdown } from './lib/event-docs.ts';

const docs = path.resolve(import.meta.dirname, '..', 'docs');
for (const [file, render] of [
  ['events.md', renderEventsMarkdown],
  ['asyncapi.yaml', renderAsyncApi],
] as const) {
  const target = path.join(docs, file);
  writeFileSync(target, render(readFileSync(target, 'utf8')));
  process.stdout.write(`wrote ${target}\n`);
}
