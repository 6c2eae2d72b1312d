import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the closing list names (the suite's time is spent in a few). */
const SLOWEST = 15;
/** A file running longer than this is named once a minute (the slowest file takes about five minutes). */
const LONG_RUNNER_MS = 8 * 60_000;
const WATCH_EVERY_MS = 60_000;

/**
 * Ends every run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI log reader
 * understands (vitest's own summary is formatted for people). Printed after the default reporter's output.
 * Before it: the slowest files with their time, and every test that passed only on a retry (vitest.config.ts
 * retries once under CI), so that neither the suite's time nor a flaky test goes unseen.
 */
export default class SummaryReporter implements Reporter {
  /** Files now running, with when each started: a file that hangs is named while the run goes on. */
  private readonly running = new Map<string, number>();
  private watchdog: NodeJS.Timeout | undefined;

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.relativeModuleId, Date.now());
    this.watchdog ??= setInterval(() => this.nameLongRunners(), WATCH_EVERY_MS).unref();
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.relativeModuleId);
  }

  /** Prints every file running for longer than LONG_RUNNER_MS (a CI log cut off by a time limit still says why). */
  private nameLongRunners(): void {
    const now = Date.now();
    for (const [file, started] of this.running) {
      const seconds = Math.round((now - started) / 1000);
      if (now - started > LONG_RUNNER_MS) process.stdout.write(`still running after ${seconds} s: ${file}\n`);
    }
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    clearInterval(this.watchdog);
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const flaky: string[] = [];
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') failedHere += 1;
        else counts.skipped += 1;
        if (state === 'passed' && test.diagnostic()?.flaky) flaky.push(`${module.relativeModuleId} > ${test.fullName}`);
      }
      // A file that failed to load, or whose beforeAll/afterAll failed, is a failure even when no single test
      // is marked failed (its tests show as skipped).
      if (failedHere === 0 && module.state() === 'failed') failedHere = 1;
      counts.failed += failedHere;
    }
    counts.failed += unhandledErrors.length;
    const out: string[] = [];
    const timed = testModules
      .map((module) => ({ file: module.relativeModuleId, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms);
    const total = timed.reduce((sum, { ms }) => sum + ms, 0);
    out.push(`\nSlowest files (${Math.round(total / 1000)} s in tests and hooks in all, over the workers):`);
    for (const { file, ms } of timed.slice(0, SLOWEST)) out.push(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
    if (flaky.length > 0) out.push(`\nPassed only on a retry (${flaky.length}):`, ...flaky.map((name) => `  ${name}`));
    out.push(`\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
