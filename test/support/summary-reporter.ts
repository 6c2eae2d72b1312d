import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends every run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI log reader
 * understands (vitest's own summary is formatted for people). Printed after the default reporter's output.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') failedHere += 1;
        else counts.skipped += 1;
      }
      // A file that failed to load, or whose beforeAll/afterAll failed, is a failure even when no single test
      // is marked failed (its tests show as skipped).
      if (failedHere === 0 && module.state() === 'failed') failedHere = 1;
      counts.failed += failedHere;
    }
    counts.failed += unhandledErrors.length;
    process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
