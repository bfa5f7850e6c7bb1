// `npm run fuzz`: the fuzz tests (test/fuzz.test.ts, every REST route; test/mcp-fuzz.test.ts, every MCP tool and
// the JSON-RPC envelope) run longer, from a fresh seed: FUZZ_RUNS cases per route or tool (default 200; `npm test`
// runs 15), FUZZ_SEED to replay a run (the seed is printed first and last). Starts Postgres and Kafka like
// `npm test` when DATABASE_URL / KAFKA_BROKERS are not given; no type-check or lint.
// Further arguments go to vitest, e.g. `npm run fuzz -- -t 'POST /webhooks'` for one route.
import { randomInt } from 'node:crypto';
import { bootstrap } from './lib/bootstrap.mjs';

await bootstrap();
// fast-check seeds are 32-bit integers; each route adds its index in the route table to this one.
const seed = process.env.FUZZ_SEED ?? String(randomInt(2 ** 31 - 1000));
const runs = process.env.FUZZ_RUNS ?? '200';
const replay = `FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`;
process.stderr.write(`[fuzz] seed ${seed}, ${runs} cases per route (replay: ${replay})\n`);

const { runVitest } = await import('./lib/infra.mjs');
const code = await runVitest(['test/fuzz.test.ts', 'test/mcp-fuzz.test.ts', ...process.argv.slice(2)], {
  env: { FUZZ_SEED: seed, FUZZ_RUNS: runs },
});
process.stderr.write(`[fuzz] seed ${seed}: ${code === 0 ? 'no failure' : 'FAILED'} (replay: ${replay})\n`);
process.exit(code);
