import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * Issue 52, item 7, in real Chromium against `pagejson serve` at 1280 px: the endpoint page shows the data and
 * its structure first ("Try it", then the structure) and folds the settings below them; "Try it" says how many
 * items it read; and no page logs a console error or gets a 4xx for a request of its own (there was one 404
 * per page load). Screenshot: test-results/dashboard-endpoint-first.png.
 */
const SHOTS = join(REPO_ROOT, 'test-results');
const skip = skipBrowserTests();
let site: FixtureSite;
let temp: TempProject;
let serve: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  await mkdir(SHOTS, { recursive: true });
  site = await startFixtureSite();
  temp = await makeProject([
    {
      apiId: 'books',
      url: `${site.origin}/listing.html`,
      caching: false,
      structure: [
        { name: 'heading', type: 'string', selector: 'h1' },
        { name: 'books', type: 'array', selector: 'article.product_pod', fields: [{ name: 'title', type: 'string', selector: 'h3 a' }] },
      ],
    },
  ]);
  serve = await spawnServe(temp.root);
  browser = await launchTestChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.child;
  await site?.close();
  await temp?.cleanup();
});

describe.skipIf(skip)('the endpoint page at 1280 px', () => {
  it('shows Try it and the structure first, the settings folded below, the items read, and no page errs', async () => {
    const { page, problems } = await signInToDashboard(browser, { projectRoot: temp.root, serveUrl: serve.url });
    // Every error the console shows, 4xx answers included, and every request of the dashboard's that failed.
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
    });
    await page.reload();
    await page.getByRole('link', { name: 'books' }).first().waitFor();
    await page.goto(`${serve.url}/ui/endpoints/books`);

    const tryIt = page.getByRole('region', { name: 'Try it' });
    const structure = page.getByRole('region', { name: 'Structure' });
    const settings = page.locator('details#settings');
    await tryIt.waitFor();
    const top = async (locator: typeof tryIt) => (await locator.boundingBox())!.y;
    expect(await top(tryIt)).toBeLessThan(await top(structure));
    expect(await top(structure)).toBeLessThan(await top(settings));
    // Folded: the sections inside are not shown until the summary is opened.
    await expect(page.getByRole('region', { name: 'Pagination' }).isVisible()).resolves.toBe(false);
    await page.screenshot({ path: join(SHOTS, 'dashboard-endpoint-first.png'), fullPage: true });
    await settings.locator('summary').click();
    await page.getByRole('region', { name: 'Pagination' }).waitFor();

    await tryIt.getByRole('button', { name: 'Run revision 1' }).click();
    await tryIt.getByText('Read 1 page, 14 items in books.').waitFor();

    // The other pages, reached from the navigation (no full load: the 404 was once per load).
    for (const [name, title] of [
      ['Generate', 'Generate an endpoint'],
      ['Keys', 'API keys'],
      ['Usage', 'Usage'],
      ['Endpoints', 'Endpoints'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
    }
    expect(errors).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
