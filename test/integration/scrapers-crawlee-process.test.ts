import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { chromiumAvailable, skipBrowserTests } from '../support/chromium.js';

/**
 * Scrapers 2 and 3 as the CLI uses them, in a process of their own (the built code, run from an empty
 * working directory): Crawlee prints nothing, writes nothing to ./storage, and once the scrapers are closed
 * the process exits by itself (no timer, socket or browser keeps it alive).
 */
const withBrowser = !skipBrowserTests() && chromiumAvailable;
let workDir: string;

beforeAll(async () => {
  await ensureBuilt();
  workDir = await mkdtemp(join(tmpdir(), 'pagejson-'));
}, 300_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const moduleUrl = (path: string): string => pathToFileURL(join(REPO_ROOT, 'dist', path)).href;

describe('scrapers 2 and 3 in a CLI-like process', () => {
  it('print nothing, write nothing to the working directory, and let the process exit after close()', async () => {
    const script = `
      const { createCrawleeScraper } = await import(${JSON.stringify(moduleUrl('src/core/fetch/scrapers/crawlee.js'))});
      const { createBrowserScraper } = await import(${JSON.stringify(moduleUrl('src/core/fetch/scrapers/browser.js'))});
      const { startFixtureSite } = await import(${JSON.stringify(moduleUrl('test/support/site.js'))});
      const site = await startFixtureSite();
      const options = { timeoutMs: 30000, maxBytes: 1048576, allowPrivateNetworks: true, perOriginConcurrency: 4 };
      const scrapers = [createCrawleeScraper(options)];
      if (${withBrowser}) scrapers.push(createBrowserScraper(options));
      const sizes = [];
      for (const scraper of scrapers) {
        sizes.push((await scraper.fetch({ url: site.origin + '/listing.html' })).html.length > 0);
        await scraper.fetch({ url: site.origin + '/faults/404' }).catch(() => undefined);
        await scraper.close();
      }
      await site.close();
      process.on('exit', () => process.stdout.write('EXIT ' + sizes.join(',')));
    `;
    const result = await execa(process.execPath, ['--input-type=module', '-e', script], { cwd: workDir, timeout: 120_000, reject: false });
    expect(result.timedOut, 'the process did not exit by itself').toBe(false);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(withBrowser ? 'EXIT true,true' : 'EXIT true');
    expect(result.exitCode).toBe(0);
    expect(await readdir(workDir)).toEqual([]);
  }, 180_000);
});
