import type { Browser } from 'playwright-core';
import { isExecutable, skipWithoutBinary } from './required-binary.js';

/**
 * Where the browser tests find Chromium, and what they do without it. Debian's `chromium` package
 * (`/usr/bin/chromium`, PAGEJSON_CHROMIUM overrides) is the only browser pagejson drives. Outside CI a
 * missing Chromium skips the browser tests with a visible notice; under CI=true they run anyway and fail,
 * so a CI image without Chromium can never pass by skipping.
 */
export const CHROMIUM_PATH = process.env.PAGEJSON_CHROMIUM ?? '/usr/bin/chromium';

export const chromiumAvailable = isExecutable(CHROMIUM_PATH);
/** True when the browser tests must be skipped; prints why, once per test file. */
export function skipBrowserTests(): boolean {
  return skipWithoutBinary(
    chromiumAvailable,
    'browser',
    `Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set PAGEJSON_CHROMIUM)`,
  );
}

/** Chromium processes that are descendants of this process (a leak check after `close()`). */
export async function chromiumChildren(): Promise<number[]> {
  const { execFile } = await import('node:child_process');
  const output = await new Promise<string>((resolve, reject) =>
    execFile('ps', ['-eo', 'pid=,ppid=,comm='], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  const rows = output
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, ...comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm: comm.join(' ') }));
  const descendants = new Set<number>([process.pid]);
  // Parents are listed before children only by accident; iterate until the set stops growing.
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (!descendants.has(row.pid) && descendants.has(row.ppid)) {
        descendants.add(row.pid);
        grew = true;
      }
    }
  }
  return rows.filter((row) => row.pid !== process.pid && descendants.has(row.pid) && /chrom/i.test(row.comm)).map((row) => row.pid);
}

/** The system Chromium as every browser test drives it: headless, quiet, no first-run work. */
export async function launchTestChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
