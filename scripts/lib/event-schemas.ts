// The compatibility check of the published event schemas (docs/events/schemas): what
// `npm run event-docs` would write now must be a compatible evolution of every committed file
// (breakingChanges of @cluster/contracts). `npm run event-docs` refuses to write a breaking change,
// and test/event-schemas.test.ts fails on one, so a published schema only ever widens within its
// version; a breaking change is a new event version (docs/events.md, "Evolving an event").
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { breakingChanges, type CatalogueEntry, EVENT_CATALOGUE } from '@cluster/contracts';
import { renderEventSchemas, SCHEMA_DIR } from './event-docs.ts';

/** docs/events/schemas of this checkout. */
export const SCHEMAS_PATH = path.resolve(import.meta.dirname, '..', '..', 'docs', SCHEMA_DIR);

/** The committed schema files of a folder, by file name, as text. */
export function readPublishedSchemas(dir = SCHEMAS_PATH): Map<string, string> {
  if (!existsSync(dir)) return new Map();
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]),
  );
}

/**
 * Every way the schemas generated from `catalogue` break the `published` ones, one line each
 * (`<file>: <path>: <what>`); empty when every change is additive. A published file that is no
 * longer generated is a removed event type or version: it fails too, until its file is deleted
 * on purpose at the end of its deprecation window.
 */
export function schemaCompatibilityProblems(
  published: Map<string, string>,
  catalogue: readonly CatalogueEntry[] = EVENT_CATALOGUE,
): string[] {
  const generated = renderEventSchemas(catalogue);
  const problems: string[] = [];
  for (const [file, text] of published) {
    const now = generated.get(file);
    if (now === undefined) {
      problems.push(
        `${file}: no longer generated (the event type or version was removed or renamed; delete its file only when its deprecation window ended)`,
      );
      continue;
    }
    for (const p of breakingChanges(JSON.parse(text), JSON.parse(now))) problems.push(`${file}: ${p}`);
  }
  return problems;
}
