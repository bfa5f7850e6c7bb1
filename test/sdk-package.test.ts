import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@cluster/client';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// The SDK as npm would publish it: `npm pack` in packages/client of the dist scripts/build.mjs built
// (the test run's global setup, with @cluster/webhook-verify vendored; --ignore-scripts, so prepack
// does not rewrite dist under the other tests that import it), installed into an empty folder from the tarball (its registry
// dependencies from npm), type-checked by a consumer's tsc, and the README's first code block (the
// five-line quickstart) run by plain Node against a running cluster, through FEEDBACK_API_URL and
// FEEDBACK_API_KEY.

const ROOT = path.resolve(import.meta.dirname, '..');
const PACKAGE = path.join(ROOT, 'packages', 'client');
const work = mkdtempSync(path.join(tmpdir(), 'sdk-package-'));
const app = path.join(work, 'app');
let c: TestCluster;
let org: SeededOrg;

/** The environment of a child process outside the repository: no npm_* settings of the run that started vitest. */
const cleanEnv = (extra: Record<string, string> = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_'))),
  ...extra,
});

/** Runs a command to its end without blocking the worker; rejects with its output on a non-zero exit. */
function run(command: string, args: string[], cwd: string, env = cleanEnv(), timeoutMs = 240_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out}\n${err}`));
    });
  });
}

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Packaged');
  const client = createClient({ baseUrl: c.baseUrl, apiKey: org.key });
  await client.entries.create(org.projectId, { type: 'feedback', title: 'packaged-entry', description: '-' });
}, 300_000);
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await c?.stop();
});

describe('the published SDK', () => {
  let tarball: string;

  it('packs dist (ESM, .d.ts, the vendored verifier) and the README; depends on registry packages only', async () => {
    const [packed] = JSON.parse(
      await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], PACKAGE),
    ) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = path.join(work, packed.filename);
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/generated/openapi.d.ts',
        'dist/vendor/webhook-verify/index.js',
        'dist/vendor/webhook-verify/index.d.ts',
      ]),
    );
    expect(files.filter((f) => f.includes('.test.') || f.startsWith('src/') || f.startsWith('scripts/'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(manifest.dependencies as object)).toEqual(['openapi-fetch']);
    expect(manifest.private).toBeUndefined();
  }, 300_000);

  it('installs into an empty folder, type-checks in a consumer, and runs the README quickstart against the cluster', async () => {
    expect(tarball).toBeDefined();
    writeFileSync(path.join(work, 'package.json'), '{}');
    await run('mkdir', ['-p', app], work);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);

    // A Node consumer's TypeScript (with @types/node, as the verifier takes Buffers) sees the
    // declarations: typed namespaces and the verifier, nothing of the workspace.
    writeFileSync(
      path.join(app, 'check.ts'),
      [
        "import { createClient, verify, ApiError, type Schemas } from '@cluster/client';",
        "const client = createClient({ baseUrl: 'http://localhost:8080', apiKey: 'k' });",
        "export const entry: Promise<Schemas['Entry']> = client.entries.get('id');",
        "export const title: Promise<string> = client.entries.get('id').then((e) => e.title);",
        'export const checks = [verify, ApiError];',
        '// @ts-expect-error a required body field is missing',
        "export const bad = client.projects.create({ name: 'x' });",
      ].join('\n'),
    );
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        },
        files: ['check.ts'],
      }),
    );
    await run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);

    const readme = readFileSync(path.join(PACKAGE, 'README.md'), 'utf8');
    const script = /```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(script.trim().split('\n')).toHaveLength(5);
    expect(readme.indexOf('```js')).toBe(readme.indexOf('```'));
    writeFileSync(path.join(app, 'quickstart.mjs'), script);
    const out = await run(
      process.execPath,
      ['quickstart.mjs'],
      app,
      cleanEnv({ FEEDBACK_API_URL: c.baseUrl.replace('/api/v1', ''), FEEDBACK_API_KEY: org.key }),
      60_000,
    );
    expect(out.trim().split('\n')).toEqual(['Packaged project packaged-entry']);
  }, 300_000);
});
