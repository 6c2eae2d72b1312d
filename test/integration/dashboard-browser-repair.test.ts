import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { GOODS } from '../support/site-routes/heal-trust.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * Issue 47 item 3 on the dashboard: the endpoint page of a broken endpoint offers the repair with the view
 * `pagejson heal` prints (the change field by field, the health now and with the repair) and a Save that writes
 * it as the next revision. The goods of test/support/site-routes/heal-trust.ts, every class renamed under a new
 * wrapper; one browser, `pagejson serve` as a process. Screenshot: test-results/dashboard-repair.png (1280 px).
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
      apiId: 'goods',
      url: `${site.origin}/trust/goods`,
      caching: false,
      structure: [{ name: 'goods', type: 'array', items: { type: 'string' }, selector: 'ul.goods > li.good > h3.good-name' }],
      // The last good values a repair anchors on: what generate saw.
      generated: { model: 'heuristic', scraper: 1, at: '2026-11-28T00:00:00.000Z', sample: { goods: GOODS } },
    },
  ]);
  site.state.set('goods', '2');
  serve = await spawnServe(temp.root);
  browser = await launchTestChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.child;
  site?.state.delete('goods');
  await site?.close();
  await temp?.cleanup();
});

describe.skipIf(skip)("the endpoint page's repair", () => {
  it('shows the repair field by field with the health now and with it, and Save writes it as revision 2', async () => {
    const { page, problems } = await signInToDashboard(browser, { projectRoot: temp.root, serveUrl: serve.url, height: 1000 });
    await page.goto(`${serve.url}/ui/endpoints/goods`);
    // Try it reads the redesigned page: the endpoint is broken, and the page offers the repair.
    await page.getByRole('region', { name: 'Try it' }).getByRole('button').first().click();
    const section = page.getByRole('region', { name: 'Repair' });
    await section.getByRole('button', { name: 'Show a repair' }).click();
    const shown = section.getByTestId('repair');
    await shown.getByText('recovers 7 of 7 last good values (100%)', { exact: false }).waitFor();
    // The change field by field, as heal prints it: the list's selector, old and new.
    const change = (await shown.locator('.repair-changes li').allTextContents()).join('\n');
    expect(change).toContain('goods');
    expect(change).toContain('ul.goods > li.good > h3.good-name');
    expect(await shown.getByText(/^now:/).textContent()).toContain('broken');
    expect(await shown.getByText(/^with the repair:/).textContent()).toContain('healthy');
    await page.screenshot({ path: join(SHOTS, 'dashboard-repair.png'), fullPage: true });

    await section.getByRole('button', { name: 'Save the repair' }).click();
    await section.getByText('Saved as revision 2.').waitFor();
    const file = JSON.parse(await readFile(join(temp.root, 'configs/goods.json'), 'utf8')) as {
      revision: number;
      structure: Array<{ selector: string }>;
    };
    expect(file.revision).toBe(2);
    expect(file.structure[0]!.selector).not.toBe('ul.goods > li.good > h3.good-name');
    expect(change).toContain(file.structure[0]!.selector);
    expect(problems).toEqual([]);
  });
});
