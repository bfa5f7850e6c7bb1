// `npm test`: installs, generates, type-checks, lints (`npm run lint`), starts real
// Postgres and Kafka when DATABASE_URL / KAFKA_BROKERS are not given, and runs the
// whole suite with vitest. Ends with the plain line "N passed, M failed"; a failed
// type-check or lint stops it before the tests, with a line that names the step.
import { spawnSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bootstrap, ROOT } from './lib/bootstrap.mjs';

bootstrap();
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

const { ensureKafka, ensurePostgres, stopInfra } = await import('./lib/infra.mjs');
const started = {};
let code;
try {
  const [pg, kafka] = await Promise.all([ensurePostgres(), ensureKafka()]);
  if (pg.started) started.postgres = pg;
  if (kafka.started) started.kafka = kafka;
  mkdirSync(path.join(ROOT, '.data'), { recursive: true });
  const report = path.join(ROOT, '.data', 'vitest-report.json');
  const res = spawnSync(
    'npx',
    [
      '--no-install',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...process.argv.slice(2),
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_DATABASE_URL: pg.url,
        KAFKA_BROKERS: kafka.brokers,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      },
    },
  );
  code = res.status ?? 1;
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    // A file that fails before its tests run (a beforeAll, an import) counts as one failure too;
    // a file whose failure is already a failed test is not counted twice.
    const brokenFiles = (r.testResults ?? []).filter(
      (f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'),
    ).length;
    const failed = r.numFailedTests + brokenFiles;
    process.stdout.write(`\n${r.numPassedTests} passed, ${failed} failed\n`);
    if (r.numTotalTests === 0 || failed > 0 || r.success === false) code = code || 1;
  } else {
    process.stdout.write('\n0 passed, 1 failed\n');
    code = code || 1;
  }
} finally {
  await stopInfra(started);
}
process.exit(code);
