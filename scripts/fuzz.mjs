// `npm run fuzz`: the fuzz test (test/fuzz.test.ts) run longer, from a fresh seed: FUZZ_RUNS cases per route
// (default 200; `npm test` runs 15), FUZZ_SEED to replay a run (the seed is printed first and last). Starts
// Postgres and Kafka like `npm test` when DATABASE_URL / KAFKA_BROKERS are not given; no type-check or lint.
// Further arguments go to vitest, e.g. `npm run fuzz -- -t 'POST /webhooks'` for one route.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { bootstrap, ROOT } from './lib/bootstrap.mjs';

bootstrap();
// fast-check seeds are 32-bit integers; each route adds its index in the route table to this one.
const seed = process.env.FUZZ_SEED ?? String(randomInt(2 ** 31 - 1000));
const runs = process.env.FUZZ_RUNS ?? '200';
const replay = `FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`;
process.stderr.write(`[fuzz] seed ${seed}, ${runs} cases per route (replay: ${replay})\n`);

const { ensureKafka, ensurePostgres, stopInfra } = await import('./lib/infra.mjs');
const started = {};
let code;
try {
  const [pg, kafka] = await Promise.all([ensurePostgres(), ensureKafka()]);
  if (pg.started) started.postgres = pg;
  if (kafka.started) started.kafka = kafka;
  const res = spawnSync('npx', ['--no-install', 'vitest', 'run', 'test/fuzz.test.ts', ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      TEST_DATABASE_URL: pg.url,
      KAFKA_BROKERS: kafka.brokers,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      FUZZ_SEED: seed,
      FUZZ_RUNS: runs,
    },
  });
  code = res.status ?? 1;
} finally {
  await stopInfra(started);
}
process.stderr.write(`[fuzz] seed ${seed}: ${code === 0 ? 'no failure' : 'FAILED'} (replay: ${replay})\n`);
process.exit(code);
