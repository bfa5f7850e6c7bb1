// Every install step a fresh clone needs, run by `npm start`, `npm test` and `npm run fuzz`:
// dependencies (when the lock changed), the declared Node runtime (scripts/lib/runtime.mjs: the
// script re-runs on it) and generated code (buf + protoc-gen-es).
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensureRuntime } from './runtime.mjs';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

/**
 * `generate: false` leaves out the code generation (then generateCode()): `npm start` checks what it
 * needs (scripts/lib/preflight.mjs) between the two, so that a missing Java or a taken port is named
 * at once.
 */
export async function bootstrap({ quiet = false, generate = true } = {}) {
  const stdio = quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit';
  const installed = path.join(ROOT, 'node_modules', '.package-lock.json');
  if (!existsSync(installed) || mtime(path.join(ROOT, 'package-lock.json')) > mtime(installed)) {
    // `npm install` with the committed lock installs the locked versions and keeps what is already
    // installed. The image runs `npm ci` (k8s/Dockerfile, replayed by test/image.test.ts), which
    // holds the lock to being complete: it records every platform's optional packages.
    process.stderr.write('[setup] installing dependencies (npm install, from package-lock.json)\n');
    execSync('npm install --no-audit --no-fund', { cwd: ROOT, stdio });
  }
  // On another Node this re-runs the calling script on the declared one and does not return.
  await ensureRuntime();
  if (generate) generateCode({ quiet });
}

/** The generated protobuf code (buf + protoc-gen-es). */
export function generateCode({ quiet = false } = {}) {
  process.stderr.write('[setup] generating protobuf code (buf generate)\n');
  execSync('npx --no-install buf generate', { cwd: ROOT, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
}
