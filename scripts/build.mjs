// `npm run build`: bundles each service's entry points into services/<name>/dist/*.js
// (ESM for the declared Node major, scripts/lib/runtime.mjs, with source maps). The workspace packages (@cluster/*, which export
// their .ts sources) are bundled in; every other package stays an import resolved
// from node_modules at run time. Production, `npm start`, the k8s image and the
// tests' service processes run these files: `node services/<name>/dist/main.js`.
// The publishable packages (PUBLISHED: ESM + .d.ts in packages/<name>/dist, what npm
// gets) are compiled by tsc with their tsconfig.build.json; the SDK (packages/client) and the CLI
// (packages/cli) by their own build scripts, which vendor @cluster/webhook-verify (scripts/lib/vendored-build.mjs).
// The integrator portal (apps/portal) is built with Vite into services/gateway/dist/portal.
// Assumes generated code exists (`buf generate`; `npm start` and `npm test` run it).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';
import { declaredRuntime } from './lib/runtime.mjs';
import { buildClient } from '../packages/client/scripts/build.mjs';
import { buildCli } from '../packages/cli/scripts/build.mjs';
import { declarationImportsAsJs } from './lib/vendored-build.mjs';
import { renderReferencePage } from './lib/reference-page.mjs';
import { buildPortalApp } from './lib/portal-app.mjs';

// Loaded when a package is compiled (seconds to load; `npm run admin` builds services only).
const typescript = () => createRequire(import.meta.url)('typescript');

const ROOT = path.resolve(import.meta.dirname, '..');

/** Entry points by service: output name (without .js) -> source file under src/. */
const ENTRY_POINTS = {
  core: { main: 'main.ts', run: 'run.ts', 'admin-cli': 'admin/cli.ts', migrate: 'migrate.ts' },
  delivery: {
    main: 'main.ts',
    run: 'run.ts',
    migrate: 'migrate.ts',
    'reseal-secrets': 'reseal-secrets.ts',
    'rebuild-stats': 'rebuild-stats.ts',
  },
  evidence: { main: 'main.ts', run: 'run.ts', migrate: 'migrate.ts', 'admin-cli': 'admin-cli.ts' },
  gateway: { main: 'main.ts', run: 'run.ts' },
};

/** Bare imports outside the workspace stay imports, resolved at run time from the node_modules above dist. */
const externalDependencies = {
  name: 'external-dependencies',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@cluster/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Replaces a file only when its content changed, by a rename: a service starting
 * meanwhile (another test run) reads the old file or the new one, never half of one.
 */
function writeAtomically({ path: file, contents }) {
  try {
    if (readFileSync(file).equals(contents)) return;
  } catch {
    /* not built yet */
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

/** Bundles one service into services/<name>/dist. */
async function buildService(name) {
  const dir = path.join(ROOT, 'services', name);
  const { outputFiles } = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(ENTRY_POINTS[name]).map(([out, src]) => ({ out, in: path.join(dir, 'src', src) })),
    outdir: path.join(dir, 'dist'),
    write: false,
    bundle: true,
    splitting: false,
    platform: 'node',
    format: 'esm',
    // The syntax of the Node the image and the tests run (the declared runtime's major).
    target: `node${declaredRuntime().major}`,
    sourcemap: true,
    logLevel: 'warning',
    // A workspace package with a published dist (@cluster/webhook-verify) is bundled from its
    // sources too, as TypeScript resolves it (tsconfig.base.json's customConditions): its dist
    // may not exist yet, or be older than its sources.
    conditions: ['@cluster/source'],
    plugins: [externalDependencies],
  });
  outputFiles.forEach(writeAtomically);
  // The gateway serves the API reference page, rendered here (scripts/lib/reference-page.mjs): the
  // image needs none of the renderer's packages.
  if (name === 'gateway') await renderReferencePage({ root: ROOT, write: writeAtomically, plugins: [externalDependencies] });
}

/** Workspace packages published to npm with their own dist (JavaScript and declarations). */
const PUBLISHED = ['webhook-verify'];

/** Compiles one published package with tsc (its tsconfig.build.json); a type error fails the build. */
function buildPackage(name) {
  const ts = typescript();
  const config = path.join(ROOT, 'packages', name, 'tsconfig.build.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!parsed) throw new Error(`cannot read ${config}`);
  // Unchanged sources since the last build (their hash is stamped in dist): nothing to do.
  const hash = createHash('sha256');
  // The build scripts too: a change of what they write (declarationImportsAsJs) rebuilds.
  const scripts = [import.meta.filename, path.join(ROOT, 'scripts', 'lib', 'vendored-build.mjs')];
  for (const f of [config, ...scripts, ...parsed.fileNames].sort()) hash.update(f).update(readFileSync(f));
  const stamp = path.join(parsed.options.outDir, '.sources-sha256');
  const digest = hash.digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const { diagnostics } = program.emit(undefined, (file, text) =>
    writeAtomically({ path: file, contents: Buffer.from(declarationImportsAsJs(file, text)) }),
  );
  const errors = [...ts.getPreEmitDiagnostics(program), ...diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
    throw new Error(`packages/${name}:\n${ts.formatDiagnostics(errors, host)}`);
  }
  writeAtomically({ path: stamp, contents: Buffer.from(digest) });
}

/**
 * Builds every service (in parallel; esbuild takes well under a second for all four) and every
 * published package; `services` only those services' bundles (`npm run admin`: the CLIs it runs).
 */
export async function build({ services } = {}) {
  await Promise.all((services ?? Object.keys(ENTRY_POINTS)).map(buildService));
  if (services) return;
  // The integrator portal's pages, served by the gateway (a few seconds when changed, nothing otherwise).
  await buildPortalApp(ROOT);
  PUBLISHED.forEach(buildPackage);
  buildClient();
  buildCli();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--package') {
  // `npm run build` (and prepack) of one published package: `node ../../scripts/build.mjs --package webhook-verify`.
  const name = process.argv[3];
  if (!PUBLISHED.includes(name)) throw new Error(`--package takes one of ${PUBLISHED.join(', ')}, not ${name}`);
  buildPackage(name);
  process.stderr.write(`[build] packages/${name}/dist\n`);
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  await build();
  process.stderr.write(
    `[build] services/*/dist and packages/{${[...PUBLISHED, 'client', 'cli'].join(',')}}/dist in ${Math.round(performance.now() - started)} ms\n`,
  );
}
