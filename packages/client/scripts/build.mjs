// `npm run build` (and prepack): compiles the SDK into dist (ESM and .d.ts) with tsc, and vendors
// @cluster/webhook-verify, which is a workspace package and not on the registry: its sources are
// compiled into dist/vendor/webhook-verify and the SDK's import of it is rewritten to that copy.
// The tarball so depends on registry packages only (openapi-fetch); see docs/sdk.md, "Packaging".
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const here = path.resolve(import.meta.dirname, '..');
const dist = path.join(here, 'dist');
const verify = path.dirname(createRequire(import.meta.url).resolve('@cluster/webhook-verify/package.json'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const VENDORED = './vendor/webhook-verify/index.js';

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, ...args], { cwd: here, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc ${args.join(' ')} exited ${code}`))));
  });
}

rmSync(dist, { recursive: true, force: true });
await run([
  '-p',
  path.join(verify, 'tsconfig.build.json'),
  '--outDir',
  path.join(dist, 'vendor', 'webhook-verify'),
  '--declarationMap',
  'false',
  '--sourceMap',
  'false',
]);
// tsconfig.build.json maps @cluster/webhook-verify to the declarations just written.
await run(['-p', 'tsconfig.build.json']);
for (const file of readdirSync(dist)) {
  if (!/\.(js|d\.ts)$/.test(file)) continue;
  const full = path.join(dist, file);
  const text = readFileSync(full, 'utf8');
  if (text.includes("'@cluster/webhook-verify'"))
    writeFileSync(full, text.replaceAll("'@cluster/webhook-verify'", `'${VENDORED}'`));
}
const left = readdirSync(dist, { recursive: true })
  .filter((f) => /\.(js|ts)$/.test(f))
  .filter((f) => readFileSync(path.join(dist, f), 'utf8').match(/(from \s*|import\()['"]@cluster\//));
if (left.length) throw new Error(`dist still imports a workspace package: ${left.join(', ')}`);
process.stderr.write('[client] dist built (webhook-verify vendored)\n');
