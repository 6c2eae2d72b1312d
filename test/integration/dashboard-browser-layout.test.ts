import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * How the dashboard reads at 1280 px wide (issue 39), in real Chromium against `pagejson serve`: the "not fetched
 * yet" badge stays on one line, a long field name is shown whole (not cut by its box), the live sample stays in
 * view beside a field edited far down a long structure, and keys are named by their label in usage and keys.
 * Screenshots: test-results/dashboard-layout-*.png.
 */
const SHOTS = join(REPO_ROOT, 'test-results');
const LONG_NAME = 'estimatedDeliveryWindowForTheSelectedRegion';
const skip = skipBrowserTests();
let site: FixtureSite;
let temp: TempProject;
let serve: ServeProcess;
let browser: Browser;

/** A long structure: the last field sits far below the top of the structure section. */
function catalogue(): ApiConfigInput {
  const filler = Array.from({ length: 22 }, (_, index) => ({ name: `note${index + 1}`, type: 'string' as const, selector: 'h1' }));
  return {
    apiId: 'catalogue',
    url: `${site.origin}/listing.html`,
    caching: false,
    structure: [
      { name: LONG_NAME, type: 'string', selector: 'title' },
      ...filler,
      { name: 'firstBook', type: 'string', selector: 'article.product_pod h3 a' },
    ],
  };
}

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  await mkdir(SHOTS, { recursive: true });
  site = await startFixtureSite();
  temp = await makeProject([catalogue()]);
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

/** An element's font size in px, run in the page (the tests are compiled without the DOM's types). */
function fontSizeOf(element: unknown): number {
  const view = globalThis as unknown as { getComputedStyle(target: unknown): { fontSize: string } };
  return parseFloat(view.getComputedStyle(element).fontSize);
}

function signedIn(): Promise<{ page: Page; problems: string[] }> {
  return signInToDashboard(browser, { projectRoot: temp.root, serveUrl: serve.url });
}

describe.skipIf(skip)('the dashboard at 1280 px', () => {
  it('keeps the "not fetched yet" badge on one line', async () => {
    const { page, problems } = await signedIn();
    const badge = page.getByText('not fetched yet').first();
    await badge.waitFor();
    const box = (await badge.boundingBox())!;
    const fontSize = await badge.evaluate(fontSizeOf);
    // One line of text with its padding; wrapped into an oval it was three lines high.
    expect(box.height).toBeLessThan(fontSize * 2.2);
    expect(box.width).toBeGreaterThan(box.height * 3);
    await page.screenshot({ path: join(SHOTS, 'dashboard-layout-endpoints.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a long field name whole, and keeps the live sample beside a field edited far down', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${serve.url}/ui/endpoints/catalogue`);
    const name = page.getByLabel(`Name of ${LONG_NAME}`);
    await name.waitFor();
    expect(await name.inputValue()).toBe(LONG_NAME);
    const fits = await name.evaluate((input) => ({ scroll: input.scrollWidth, client: input.clientWidth, title: input.title }));
    expect(fits.scroll).toBeLessThanOrEqual(fits.client);
    expect(fits.title).toBe(LONG_NAME);

    const selector = page.getByLabel('Selector of firstBook');
    await selector.scrollIntoViewIfNeeded();
    await selector.fill('article.product_pod h3 a[title]');
    await selector.press('Enter');
    const sample = page.getByLabel('What the edited structure extracts from the page');
    await expect.poll(async () => (await sample.textContent()) ?? '', { timeout: 30_000 }).toContain('A Light in the Attic');
    await selector.scrollIntoViewIfNeeded();
    const viewport = page.viewportSize()!;
    const [field, shown] = [(await selector.boundingBox())!, (await sample.boundingBox())!];
    // The field is far down the page, and the sample is in view with it, to its right.
    expect(field.y).toBeGreaterThanOrEqual(0);
    expect(field.y + field.height).toBeLessThanOrEqual(viewport.height);
    expect(shown.y).toBeGreaterThanOrEqual(0);
    expect(shown.y).toBeLessThan(viewport.height - 100);
    expect(shown.x).toBeGreaterThan(field.x);
    expect(Number(await page.evaluate('window.scrollY'))).toBeGreaterThan(600);
    await page.screenshot({ path: join(SHOTS, 'dashboard-layout-sample.png') });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('names keys by their label in usage and on the keys page', async () => {
    const created = await execa(process.execPath, [CLI_BIN, 'keys', 'create', '--label', 'partner-x', '--json'], { cwd: temp.root });
    const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };
    expect((await fetch(`${serve.url}/external/catalogue`, { headers: { apikey: key } })).status).toBe(200);
    const { page, problems } = await signedIn();
    await page.goto(`${serve.url}/ui/usage`);
    const perKey = page.locator('section', { has: page.getByRole('heading', { name: 'Per key' }) });
    await expect
      .poll(
        async () => {
          await page.reload();
          return perKey.locator('tbody th').allTextContents();
        },
        { timeout: 30_000 },
      )
      .toEqual(['partner-x']);
    expect(await page.getByLabel('Key').locator('option').allTextContents()).toEqual(['all keys', 'partner-x']);
    // The label on one line, and the table within its card.
    const label = perKey.locator('tbody th').first();
    const lineHeight = (await label.evaluate(fontSizeOf)) * 1.8;
    expect((await label.boundingBox())!.height).toBeLessThan(lineHeight + 16);
    const [table, card] = [(await perKey.locator('table').boundingBox())!, (await perKey.boundingBox())!];
    expect(table.x + table.width).toBeLessThanOrEqual(card.x + card.width);
    await page.screenshot({ path: join(SHOTS, 'dashboard-layout-usage.png'), fullPage: true });
    await page.goto(`${serve.url}/ui/keys`);
    const row = page.getByRole('row', { name: new RegExp(`partner-x`) });
    await expect.poll(() => row.locator('th').textContent()).toBe(`partner-x${id}`);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
