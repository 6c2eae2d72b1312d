import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real daemons, browsers and redis-servers: two workers match the 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    // The summary line goes last: CI reads the closing `N passed, N failed` line.
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
