import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { CLI_BIN } from './build-once.js';

/**
 * A dashboard page signed in the way a user signs in: `pagejson dashboard --json` prints a one-time link,
 * the browser follows it to /ui/. `problems` collects page errors and console errors (4xx answers aside,
 * which the pages show as messages) for the test to assert empty.
 */
export async function signInToDashboard(
  browser: Browser,
  options: { projectRoot: string; serveUrl: string; height?: number },
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: options.height ?? 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  const link = await execa(process.execPath, [CLI_BIN, 'dashboard', '--json'], { cwd: options.projectRoot, reject: false });
  expect(link.exitCode).toBe(0);
  await page.goto((JSON.parse(link.stdout) as { url: string }).url);
  await page.waitForURL(`${options.serveUrl}/ui/`);
  return { page, problems };
}
