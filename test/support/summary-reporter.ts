import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends every run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI log reader
 * understands (vitest's own summary is formatted for people). Printed after the default reporter's output.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
      // A file that failed to load has no tests but is a failure all the same.
      if (module.state() === 'failed' && ![...module.children.allTests()].length) counts.failed += 1;
    }
    process.stdout.write(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
