import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@cluster/client';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// The published packages, @cluster/client, @cluster/webhook-verify and @cluster/cli, as npm would publish them:
// `npm pack` of the dist scripts/build.mjs built (the test run's global setup; --ignore-scripts, so
// prepack does not rewrite dist under the other tests that import it), installed from the tarballs
// into an empty project outside the repository (their registry dependencies from npm's cache,
// --prefer-offline), then, there: a consumer's tsc over test/sdk-consumer/sample.ts (strict; nodenext
// and bundler resolution) with nothing of the workspace, the compiled sample and the README's
// quickstart run by plain Node against a running cluster, and `npx cluster --help` (the CLI's bin).
// docs/sdk.md, "Installing" and "Packaging".

const ROOT = path.resolve(import.meta.dirname, '..');
const PACKAGES = {
  '@cluster/client': path.join(ROOT, 'packages', 'client'),
  '@cluster/webhook-verify': path.join(ROOT, 'packages', 'webhook-verify'),
  '@cluster/cli': path.join(ROOT, 'packages', 'cli'),
};
type PackageName = keyof typeof PACKAGES;
const NAMES = Object.keys(PACKAGES) as PackageName[];
const work = mkdtempSync(path.join(tmpdir(), 'sdk-package-'));
const app = path.join(work, 'app');
let c: TestCluster;
let quickstartOrg: SeededOrg;
let sampleOrg: SeededOrg;

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

/** Every file under a folder, relative to it. */
const filesUnder = (dir: string) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());

beforeAll(async () => {
  c = await startTestCluster();
  [quickstartOrg, sampleOrg] = await Promise.all([c.seedOrg('Packaged'), c.seedOrg('Outsider')]);
  const client = createClient({ baseUrl: c.baseUrl, apiKey: quickstartOrg.key });
  await client.entries.create(quickstartOrg.projectId, { type: 'feedback', title: 'packaged-entry', description: '-' });
}, 300_000);
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await c?.stop();
});

describe('the published packages', () => {
  const tarballs = {} as Record<PackageName, string>;

  it.each(NAMES)(
    '%s packs dist (ESM, .d.ts), README, CHANGELOG and LICENSE, no tests; a version the changelog records',
    async (name) => {
      const dir = PACKAGES[name];
      const [packed] = JSON.parse(await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], dir)) as {
        filename: string;
        files: { path: string }[];
      }[];
      tarballs[name] = path.join(work, packed.filename);
      const files = packed.files.map((f) => f.path);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        private?: boolean;
        license: string;
        description: string;
        exports: Record<string, Record<string, string>>;
        bin?: Record<string, string>;
        engines: Record<string, string>;
      };
      expect(manifest.name).toBe(name);
      expect(manifest.private).toBeUndefined();
      expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect([manifest.license, manifest.engines.node, manifest.description.length > 20]).toEqual([
        'MIT',
        expect.any(String),
        true,
      ]);
      // What the exports name for an outsider (types, import), or the CLI's bin, is in the tarball.
      const entry = manifest.exports['.'];
      const exported = (entry ? [entry.types, entry.import] : Object.values(manifest.bin ?? {})).map((f) =>
        f.replace(/^\.\//, ''),
      );
      expect(files).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json', ...exported]));
      expect(files.filter((f) => f.includes('.test.') || f.includes('sources-sha256') || f.startsWith('scripts/'))).toEqual([]);
      if (name === '@cluster/cli') {
        expect(manifest.bin).toEqual({ cluster: './dist/cli.js' });
        expect(files).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/vendor/webhook-verify/index.js']));
        expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
      }
      if (name === '@cluster/client') {
        expect(files).toEqual(
          expect.arrayContaining([
            'dist/generated/openapi.d.ts',
            'dist/vendor/webhook-verify/index.js',
            'dist/vendor/webhook-verify/index.d.ts',
          ]),
        );
        expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
      }
      // The changelog's latest release is this version.
      const changelog = readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8');
      expect(/^## \[(\d+\.\d+\.\d+)\]/m.exec(changelog)?.[1]).toBe(manifest.version);
    },
    300_000,
  );

  it('install into an empty project from npm registry packages only: nothing of the workspace, declarations a consumer follows', async () => {
    expect(Object.keys(tarballs).sort()).toEqual([...NAMES].sort());
    mkdirSync(app);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'outsider', private: true, type: 'module' }));
    // Third-party dependencies from npm's cache when it has them (the registry otherwise): offline on a warm cache.
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...NAMES.map((n) => tarballs[n])], app);

    const installed = path.join(app, 'node_modules');
    expect(readdirSync(path.join(installed, '@cluster')).sort()).toEqual(['cli', 'client', 'webhook-verify']);
    for (const name of NAMES) {
      const manifest = JSON.parse(readFileSync(path.join(installed, name, 'package.json'), 'utf8')) as Record<string, unknown>;
      // Runtime dependencies: registry packages by semver range, never a workspace package or a local path.
      const runtime = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) =>
        Object.entries((manifest[field] ?? {}) as Record<string, string>),
      );
      expect(runtime.filter(([dep, range]) => dep.startsWith('@cluster/') || !/^[\^~]?\d/.test(range))).toEqual([]);
      expect(runtime.map(([dep]) => dep)).toEqual(name === '@cluster/client' ? ['openapi-fetch'] : []);
      // The shipped code imports no @cluster/ package (the client's copy of the verifier is vendored), and
      // its declarations import their neighbours as .js, which every TypeScript since 4.7 follows.
      for (const file of filesUnder(path.join(installed, name, 'dist')).filter((f) => /\.(js|d\.ts)$/.test(f.name))) {
        const text = readFileSync(path.join(file.parentPath, file.name), 'utf8');
        expect(text, file.name).not.toMatch(/(from\s*|import\()['"]@cluster\//);
        expect(text, file.name).not.toMatch(/(from\s*|import\()['"]\.{1,2}\/[^'"]*\.ts['"]/);
      }
    }
    // The tarballs are the only local sources; every other package came from the registry, by version and
    // integrity (npm writes no `resolved` for a registry package, a URL for another registry's), never a link or a path.
    const lock = JSON.parse(readFileSync(path.join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; resolved?: string; integrity?: string; link?: boolean }>;
    };
    const entries = Object.entries(lock.packages).filter(([where]) => where !== '');
    expect(
      entries
        .filter(([, p]) => p.resolved?.startsWith('file:'))
        .map(([where]) => where)
        .sort(),
    ).toEqual(NAMES.map((n) => `node_modules/${n}`).sort());
    const registry = entries.filter(([where]) => !where.startsWith('node_modules/@cluster/'));
    expect(registry.map(([where]) => where)).toContain('node_modules/openapi-fetch');
    for (const [where, p] of registry) {
      expect(p, where).toMatchObject({ version: expect.stringMatching(/^\d/), integrity: expect.stringMatching(/^sha512-/) });
      expect([p.link, p.resolved ?? 'https://'], where).toEqual([undefined, expect.stringMatching(/^https?:\/\//)]);
    }
  }, 300_000);

  it('type-checks the typed sample in the project (strict; nodenext and bundler resolution), and it runs against the cluster', async () => {
    copyFileSync(path.join(ROOT, 'test', 'sdk-consumer', 'sample.ts'), path.join(app, 'sample.ts'));
    // The consumer's TypeScript and @types/node are the workspace's; its code and types are only what npm installed.
    const compilerOptions = {
      strict: true,
      target: 'es2022',
      types: ['node'],
      typeRoots: [path.join(ROOT, 'node_modules', '@types')],
      skipLibCheck: false,
    };
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, module: 'nodenext', outDir: 'build' }, files: ['sample.ts'] }),
    );
    writeFileSync(
      path.join(app, 'tsconfig.bundler.json'),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, module: 'esnext', moduleResolution: 'bundler', noEmit: true },
        files: ['sample.ts'],
      }),
    );
    await run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], app);
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);

    const env = cleanEnv({ FEEDBACK_API_URL: c.baseUrl, FEEDBACK_API_KEY: sampleOrg.key });
    const out = (await run(process.execPath, ['build/sample.js'], app, env, 90_000)).trim().split('\n');
    const id = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
    expect(out).toEqual([
      expect.stringMatching(new RegExp(`^created project Outsider 201 request ${id}$`)),
      expect.stringMatching(new RegExp(`^page 1 of 1: outsider-entry request ${id}$`)),
      expect.stringMatching(new RegExp(`^error 404 not_found request ${id}$`)),
      'verified entry.created of the entry: outsider-entry',
      'ApiConnectionError ECONNREFUSED cause fetch failed',
      'createClient: options.baseUrl is not an absolute URL: "api.example.com"; pass the gateway\'s URL, e.g. "https://api.example.com" or "https://api.example.com/api/v1"',
    ]);
    // A misspelt event name does not compile: the consumer's tsc refuses test/sdk-consumer/misspelt.ts, naming it.
    copyFileSync(path.join(ROOT, 'test', 'sdk-consumer', 'misspelt.ts'), path.join(app, 'misspelt.ts'));
    writeFileSync(
      path.join(app, 'tsconfig.misspelt.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, module: 'nodenext', noEmit: true }, files: ['misspelt.ts'] }),
    );
    const refused = await run(process.execPath, [tsc, '-p', 'tsconfig.misspelt.json'], app).then(
      () => '',
      (err: Error) => err.message,
    );
    expect(refused.match(/misspelt\.ts\(\d+,\d+\): error TS\d+: [^\n]*/g)).toEqual([
      expect.stringMatching(/error TS2367: .*'"entry\.craeted"'/),
      expect.stringMatching(/error TS2820: Type '"entry\.craeted"' is not assignable to .* Did you mean '"entry\.created"'\?/),
    ]);
    // Each answer has its own id.
    const ids = out.slice(0, 3).map((line) => new RegExp(id).exec(line)?.[0]);
    expect(new Set(ids).size).toBe(3);
  }, 300_000);

  it('runs the CLI from the project: `npx cluster --help`, and `cluster trigger` against the cluster', async () => {
    const help = await run('npx', ['--no-install', 'cluster', '--help'], app, cleanEnv(), 60_000);
    expect(help).toMatch(/^Usage: cluster <command> \[options\]/);
    expect(help).toContain('listen --forward-to <url>');
    // The installed bin talks to the API: with no listener running, trigger says so and exits 1.
    const env = cleanEnv({ FEEDBACK_API_URL: c.baseUrl, FEEDBACK_API_KEY: quickstartOrg.key });
    const refused = await run('npx', ['--no-install', 'cluster', 'trigger', 'entry.created'], app, env, 60_000).then(
      () => '',
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/exited 1:\nno listener selects entry\.created/);
  }, 120_000);

  it("runs the client README's quickstart, as plain JavaScript, against the cluster", async () => {
    const readme = readFileSync(path.join(PACKAGES['@cluster/client'], 'README.md'), 'utf8');
    const script = /```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(script.trim().split('\n')).toHaveLength(5);
    expect(readme.indexOf('```js')).toBe(readme.indexOf('```'));
    writeFileSync(path.join(app, 'quickstart.mjs'), script);
    const out = await run(
      process.execPath,
      ['quickstart.mjs'],
      app,
      cleanEnv({ FEEDBACK_API_URL: c.baseUrl.replace('/api/v1', ''), FEEDBACK_API_KEY: quickstartOrg.key }),
      60_000,
    );
    expect(out.trim().split('\n')).toEqual(['Packaged project packaged-entry']);
  }, 120_000);
});
