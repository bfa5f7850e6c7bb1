import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// docs/adding-a-resource.md, followed mechanically: in a copy of this checkout, `npm run
// new-resource` adds "labels on entries"; the copy must then type-check, lint and pass the
// generated unit and end-to-end tests (real Postgres and Kafka) and the document checks (OpenAPI,
// events, tool schemas); and the page's list of files edited by hand must be what it says.
const ROOT = path.resolve(import.meta.dirname, '..');
// Inside the checkout (git-ignored), so node_modules can be hard-linked: same file system.
const COPY = path.join(ROOT, '.cache', 'new-resource-check');
const PAGE = readFileSync(path.join(ROOT, 'docs', 'adding-a-resource.md'), 'utf8');
const WORKSPACES = ['.', 'packages/*', 'services/*', 'test', 'bench'];

/**
 * Runs a command in the copy and resolves with whether it succeeded and its output. Asynchronous:
 * the commands take minutes, and a blocked event loop would keep vitest's worker from answering
 * its runner (a worker RPC timeout fails the whole run).
 */
function inCopy(command: string, args: string[], env: Record<string, string> = {}): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: COPY, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, encoding: 'utf8', maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ ok: !err, output: `${stdout}\n${stderr}` }),
    );
  });
}

/** Runs a command and rejects with its output when it fails (asynchronous, as inCopy). */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command} ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
  });
}

/** The tracked files (and new ones not ignored) copied; every node_modules hard-linked (`cp -al`: links stay relative). */
async function copyCheckout(): Promise<void> {
  await rm(COPY, { recursive: true, force: true });
  const files = (await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT))
    .split('\0')
    .filter((f) => f && existsSync(path.join(ROOT, f)));
  for (const f of files) cpSync(path.join(ROOT, f), path.join(COPY, f));
  const listed = await run(
    'bash',
    ['-c', `ls -d ${WORKSPACES.map((w) => `${w}/node_modules`).join(' ')} 2>/dev/null || true`],
    ROOT,
  );
  for (const dir of listed.split('\n').filter(Boolean)) {
    mkdirSync(path.dirname(path.join(COPY, dir)), { recursive: true });
    await run('cp', ['-al', path.join(ROOT, dir), path.join(COPY, dir)], ROOT);
  }
}

/** The files the page says a contributor edits by hand after the generator: its "By hand" table's first column. */
function handEditedFiles(): string[] {
  const section = PAGE.split(/^## /m).find((s) => s.startsWith('By hand'));
  if (!section) throw new Error('docs/adding-a-resource.md has no "## By hand" section');
  return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
}

let generated: string[] = [];
let created: string[] = [];

beforeAll(async () => {
  await copyCheckout();
  const res = await inCopy('node', [
    '--import',
    'tsx',
    'scripts/new-resource.ts',
    'labels',
    '--parent',
    'entries',
    '--fields',
    'name:string,color:string',
  ]);
  if (!res.ok) throw new Error(res.output);
  generated = [...res.output.matchAll(/^(?:new|edited)\s+(\S+)$/gm)].map((m) => m[1]);
  created = [...res.output.matchAll(/^new\s+(\S+)$/gm)].map((m) => m[1]);
}, 180_000);
afterAll(() => rm(COPY, { recursive: true, force: true }));

describe('adding a resource by docs/adding-a-resource.md (labels on entries)', () => {
  it('the page names at most 8 files edited by hand, each one the generator wrote or a decisions page', () => {
    const byHand = handEditedFiles();
    expect(byHand.length).toBeGreaterThan(0);
    expect(byHand.length).toBeLessThanOrEqual(8);
    const stated = /touches \*\*(\d+) files by hand\*\*/.exec(PAGE)?.[1];
    expect(Number(stated)).toBe(byHand.length);
    for (const file of byHand) expect(generated.includes(file) || file.startsWith('docs/decisions'), file).toBe(true);
  });

  it('writes, edits and regenerates as many files as the page says', () => {
    const stated = /That is (\d+) files, (\d+) of them new, and (\d+)\s+regenerated/.exec(PAGE);
    expect(stated, 'docs/adding-a-resource.md states "That is N files, M of them new, and K regenerated"').not.toBeNull();
    // Regenerated: committed files under docs/ and the SDK's generated sources that differ from this checkout's.
    const regenerated = ['docs', 'packages/client/src/generated']
      .flatMap((dir) => readdirSync(path.join(COPY, dir), { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)))
      .filter((f) => statSync(path.join(COPY, f)).isFile() && !generated.includes(f))
      .filter(
        (f) => !existsSync(path.join(ROOT, f)) || !readFileSync(path.join(ROOT, f)).equals(readFileSync(path.join(COPY, f))),
      );
    expect(stated!.slice(1).map(Number), regenerated.join(', ')).toEqual([generated.length, created.length, regenerated.length]);
  });

  it('puts the events in the resource’s own section of docs/events.md', () => {
    const events = readFileSync(path.join(COPY, 'docs', 'events.md'), 'utf8');
    const section = events.split(/^## /m).find((s) => s.startsWith('Labels\n'));
    expect(section).toContain('label.created');
    expect(events.split(/^## /m).find((s) => s.startsWith('Wiki pages, users'))).not.toContain('label.created');
  });

  it('type-checks and lints', async () => {
    for (const project of ['packages/contracts', 'packages/platform', 'services/core', 'services/gateway', 'test']) {
      const res = await inCopy('npx', ['--no-install', 'tsc', '-p', project, '--noEmit']);
      expect(res.ok, res.output).toBe(true);
    }
    const lint = await inCopy('npx', ['--no-install', 'eslint', ...generated.filter((f) => f.endsWith('.ts'))]);
    expect(lint.ok, lint.output).toBe(true);
    const format = await inCopy('npx', [
      '--no-install',
      'prettier',
      '--check',
      ...generated.filter((f) => !f.endsWith('.proto')),
    ]);
    expect(format.ok, format.output).toBe(true);
  }, 600_000);

  it('passes its generated unit and end-to-end tests, and the document and tool-schema checks', async () => {
    const res = await inCopy('npx', [
      '--no-install',
      'vitest',
      'run',
      'services/core/src/features/labels',
      'services/core/src/shared/crud-stores.contract.test.ts',
      'test/store-contracts.test.ts',
      'test/labels.test.ts',
      'test/openapi.test.ts',
      'test/event-docs.test.ts',
      'test/tool-schemas.test.ts',
      'packages/platform/src/operation-rules.test.ts',
      'services/gateway/src/routes.test.ts',
      'packages/contracts',
    ]);
    expect(res.ok, res.output).toBe(true);
    expect(res.output).toMatch(/Test Files\s+\d+ passed/);
    expect(res.output).toContain('labels.test.ts');
  }, 600_000);
});
