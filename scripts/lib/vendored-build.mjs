// The build of a published package that vendors @cluster/webhook-verify (packages/client, packages/cli):
// `npm run build` there and in the root (scripts/build.mjs, which the test run's global setup runs), and
// prepack. @cluster/webhook-verify is a workspace package, not on the registry: its sources are compiled
// into dist/vendor/webhook-verify and the package's import of it is rewritten to that copy, so the tarball
// depends on registry packages only. See docs/sdk.md, "Packaging". Skipped when the sources are unchanged
// since the last build (their hash is stamped in dist); the new dist is written beside the old one and
// swapped in by renames.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const VERIFY = path.dirname(require.resolve('@cluster/webhook-verify/package.json'));
const SPECIFIER = "'@cluster/webhook-verify'";
const VENDORED = "'./vendor/webhook-verify/index.js'";

/**
 * A declaration file's relative `.ts` imports as `.js`: tsc's rewriteRelativeImportExtensions
 * rewrites them in the JavaScript only, and a consumer's TypeScript before 5.0 (or one that does
 * not map `.ts` to `.d.ts` in node_modules) cannot follow `./client.ts` to `./client.d.ts`.
 */
export function declarationImportsAsJs(file, text) {
  if (!file.endsWith('.d.ts')) return text;
  return text.replace(/(\bfrom\s*|\bimport\(\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g, '$1$2$3.js$2');
}

function parse(config, overrides) {
  const parsed = ts.getParsedCommandLineOfConfigFile(config, overrides, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: () => {},
  });
  if (!parsed) throw new Error(`cannot read ${config}`);
  return parsed;
}

function compile(parsed, label, rewrite = (text) => text) {
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const { diagnostics } = program.emit(undefined, (file, text) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, rewrite(declarationImportsAsJs(file, text)));
  });
  const errors = [...ts.getPreEmitDiagnostics(program), ...diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' };
    throw new Error(`${label}:\n${ts.formatDiagnostics(errors, host)}`);
  }
}

/**
 * Builds `<dir>/dist` (its tsconfig.build.json) with @cluster/webhook-verify compiled into dist/vendor/webhook-verify
 * and imported from there, unless its sources are those of the last build; true when it built.
 * `scripts`: the calling build script, whose changes rebuild too.
 */
export function buildVendored(dir, scripts = []) {
  const label = path.relative(path.resolve(import.meta.dirname, '..', '..'), dir);
  const dist = path.join(dir, 'dist');
  const stage = path.join(dir, `dist.${process.pid}.tmp`);
  const vendor = path.join(stage, 'vendor', 'webhook-verify');
  const verify = parse(path.join(VERIFY, 'tsconfig.build.json'), {
    outDir: vendor,
    declarationMap: false,
    sourceMap: false,
  });
  const client = parse(path.join(dir, 'tsconfig.build.json'), {
    outDir: stage,
    paths: { '@cluster/webhook-verify': [path.join(vendor, 'index.d.ts')] },
  });
  const hash = createHash('sha256');
  const inputs = [
    import.meta.filename,
    ...scripts,
    path.join(dir, 'tsconfig.build.json'),
    path.join(VERIFY, 'tsconfig.build.json'),
    ...client.fileNames,
    ...verify.fileNames,
  ];
  for (const f of inputs.sort()) hash.update(f).update(readFileSync(f));
  const digest = hash.digest('hex');
  const stamp = path.join(dist, '.sources-sha256');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return false;

  rmSync(stage, { recursive: true, force: true });
  try {
    compile(verify, 'packages/webhook-verify');
    compile(client, label, (text) => text.replaceAll(SPECIFIER, VENDORED));
    const left = readdirSync(stage, { recursive: true })
      .filter((f) => /\.(js|ts)$/.test(f))
      .filter((f) => /(from\s*|import\()['"]@cluster\//.test(readFileSync(path.join(stage, f), 'utf8')));
    if (left.length) throw new Error(`dist still imports a workspace package: ${left.join(', ')}`);
    writeFileSync(path.join(stage, '.sources-sha256'), digest);
    const old = `${dist}.${process.pid}.old`;
    if (existsSync(dist)) renameSync(dist, old);
    renameSync(stage, dist);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return true;
}
