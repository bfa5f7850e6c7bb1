import { afterAll, beforeAll } from 'vitest';

/**
 * Names a test file that blocked its Vitest worker's event loop for long. A worker blocked for a
 * minute loses its link to the runner ("[vitest-worker]: Timeout calling onTaskUpdate"), which
 * fails the run with every test passed and no file named; this line names the file. Commands are
 * awaited with `run` (test/support/processes.ts), never run with execFileSync or spawnSync.
 */
const WARN_AFTER_MS = 10_000;
const TICK_MS = 250;
let worstMs = 0;
let last = 0;
let ticker: NodeJS.Timeout | undefined;

/** Counts the time since the last tick beyond the tick as blocked. */
const sample = () => {
  const now = performance.now();
  worstMs = Math.max(worstMs, now - last - TICK_MS);
  last = now;
};

beforeAll(() => {
  last = performance.now();
  ticker = setInterval(sample, TICK_MS).unref();
});

afterAll((suite) => {
  sample(); // a block at the very end, before the ticker's turn
  clearInterval(ticker);
  if (worstMs > WARN_AFTER_MS)
    process.stderr.write(
      `[blocked-loop] ${suite.file?.filepath ?? suite.name} blocked its worker's event loop for ${(worstMs / 1000).toFixed(1)} s at once\n`,
    );
});
