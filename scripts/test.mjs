// `npm test`: installs, generates, type-checks, lints (`npm run lint`), starts real
// Postgres and Kafka when DATABASE_URL / KAFKA_BROKERS are not given, and runs the
// whole suite with vitest. Ends with the plain line "N passed, M failed"; a failed
// type-check or lint stops it before the tests, with a line that names the step.
import { spawnSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bootstrap, ROOT } from './lib/bootstrap.mjs';

await bootstrap();
process.stderr.write('[test] type-checking every workspace\n');
try {
  execSync('npx --no-install turbo run typecheck --output-logs=errors-only', { cwd: ROOT, stdio: 'inherit' });
} catch {
  process.stderr.write('[test] FAILED: the type-check (see above); no test was run\n');
  process.exit(1);
}
process.stderr.write('[test] linting (npm run lint)\n');
const lint = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'lint.mjs')], { cwd: ROOT, stdio: 'inherit' });
if (lint.status !== 0) {
  process.stderr.write('[test] FAILED: the lint step (see the [lint] lines above); no test was run\n');
  process.exit(1);
}

const { runVitest } = await import('./lib/infra.mjs');
const report = path.join(ROOT, '.data', 'vitest-report.json');
mkdirSync(path.dirname(report), { recursive: true });
const args = ['--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
process.exit(await runVitest(args, { after: summarise }));

/** Prints "N passed, M failed" from vitest's JSON report; the exit code is non-zero on any failure. */
function summarise(status) {
  if (!existsSync(report)) {
    process.stdout.write('\n0 passed, 1 failed\n');
    return status || 1;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  // A file that fails before its tests run (a beforeAll, an import) counts as one failure too;
  // a file whose failure is already a failed test is not counted twice.
  const brokenFiles = (r.testResults ?? []).filter(
    (f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'),
  ).length;
  const failed = r.numFailedTests + brokenFiles;
  process.stdout.write(`\n${r.numPassedTests} passed, ${failed} failed\n`);
  return r.numTotalTests === 0 || failed > 0 || r.success === false ? status || 1 : status;
}
