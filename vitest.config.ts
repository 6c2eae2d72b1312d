import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real daemons, browsers and redis-servers: two workers match the 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    // Under CI a failed test runs once more: on the 2-core machine a real browser or daemon now and then misses
    // a bound under load. The summary reporter names every test that passed only on its retry.
    retry: process.env.CI ? 1 : 0,
    // The summary line goes last: CI reads the closing `N passed, N failed` line.
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
