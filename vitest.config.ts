import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    env: {
      // The tests run on the development keys and loopback receivers, which only CLUSTER_ENV=development
      // allows (packages/platform/src/config/process.ts, readDevelopment); the processes they start inherit it.
      CLUSTER_ENV: 'development',
      // Every test makes databases of its own: the services (in process and spawned) create theirs.
      DATABASE_CREATE: 'true',
    },
    // Builds services/*/dist once per run: process-based tests start what production runs.
    globalSetup: ['test/support/global-setup.ts'],
    // Names a test file that blocks its worker (test/support/blocked-loop.ts).
    setupFiles: ['test/support/blocked-loop.ts'],
    include: ['test/**/*.test.ts', 'services/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
