import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { paginationBook } from '../support/site-routes/pagination.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * The endpoint page's pagination (docs/pagination.md) in a real browser against `pagejson serve`: shown in
 * words, a kind chosen and tried (a browser-only kind on scraper 1 refused in words), saved as the next
 * revision, and "try it" showing every page the answer holds. Screenshot: test-results/dashboard-pagination.png.
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
      apiId: 'shelf',
      url: `${site.origin}/pages/next.html?page=1`,
      caching: false,
      structure: [
        { name: 'heading', type: 'string', selector: 'h1' },
        { name: 'books', type: 'array', selector: 'li.book', fields: [{ name: 'title', type: 'string', selector: 'a.title' }] },
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

function signedIn(): Promise<{ page: Page; problems: string[] }> {
  return signInToDashboard(browser, { projectRoot: temp.root, serveUrl: serve.url, height: 900 });
}

describe.skipIf(skip)("the endpoint page's pagination", () => {
  it('chooses a kind, refuses what cannot work, saves it, and try it shows every page', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${serve.url}/ui/endpoints/shelf`);
    // The settings are folded under the data and structure (issue 52): open them.
    await page.locator('details#settings > summary').click();
    const section = page.getByRole('region', { name: 'Pagination' });
    await section.getByText('One page: the list is read from the page as it loads.').waitFor();

    // Load more on scraper 1: said in the section, and refused by validate's rule when tried.
    await section.getByLabel('Load more').check();
    await section.getByText('needs scraper 3').waitFor();
    await section.getByLabel('Selector of the button').fill('button.more');
    await page.getByRole('button', { name: 'Try this pagination' }).click();
    await page.getByText('pagination.loadMore needs scraper 3 (the browser)').waitFor();

    await section.getByLabel('Next link').check();
    await section.getByLabel('Selector of the next-page link').fill('a[rel=next]');
    await section.getByLabel('Pages at most').fill('5');
    await page.getByRole('button', { name: 'Try this pagination' }).click();
    await page.getByText('pagination added: follow the next link "a[rel=next]" (at most 5 pages)').waitFor();
    await page.getByRole('button', { name: 'Save revision 2' }).click();
    await page.getByText(/Saved revision 2/).waitFor();
    const file = JSON.parse(await readFile(join(temp.root, 'configs/shelf.json'), 'utf8')) as { revision: number; pagination: unknown };
    expect(file).toMatchObject({ revision: 2, pagination: { next: 'a[rel=next]', maxPages: 5 } });
    await section.getByText('Reads the list over pages: follow the next link "a[rel=next]" (at most 5 pages).', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Run revision 2' }).click();
    await page.getByText('Read 3 pages').waitFor();
    const urls = await page.getByLabel('The pages the answer holds').locator('li').allTextContents();
    expect(urls.map((url) => new URL(url).searchParams.get('page'))).toEqual(['1', '2', '3']);
    const answer = JSON.parse((await page.getByLabel("The endpoint's answer").textContent()) ?? 'null') as {
      data: { books: Array<{ title: string }> };
    };
    expect(answer.data.books.map((book) => book.title)).toEqual(Array.from({ length: 9 }, (_, index) => paginationBook(index + 1).title));
    await page.screenshot({ path: join(SHOTS, 'dashboard-pagination.png'), fullPage: true });

    const validate = await execa(process.execPath, [CLI_BIN, 'validate'], { cwd: temp.root, reject: false });
    expect(validate.exitCode).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('generating from a page with a next link proposes the pagination, shown in words and saved with the endpoint', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${serve.url}/ui/generate`);
    await page.getByLabel('Page URL').fill(`${site.origin}/pages/next.html?page=1`);
    await page.getByLabel(/^API id/).fill('generated');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.getByRole('heading', { name: 'Proposal: generated' }).waitFor({ timeout: 30_000 });
    const section = page.getByRole('region', { name: 'Pagination' });
    await section
      .getByText('Reads the list over pages: follow the next link "a[rel~="next"]" (at most 10 pages).', { exact: false })
      .waitFor();
    await page.screenshot({ path: join(SHOTS, 'dashboard-generate-pagination.png'), fullPage: true });
    await page.getByRole('button', { name: 'Save as generated' }).click();
    await page.getByText(/Saved .*configs\/generated\.json/).waitFor();
    const saved = JSON.parse(await readFile(join(temp.root, 'configs/generated.json'), 'utf8')) as { pagination?: unknown };
    expect(saved.pagination).toEqual({ next: 'a[rel~="next"]', maxPages: 10 });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
