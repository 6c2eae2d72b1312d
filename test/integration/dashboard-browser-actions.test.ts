import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { ACTION_ITEMS } from '../support/site-routes/actions.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * The endpoint page's browser actions (docs/actions.md) in a real browser against `pagejson serve`: the steps
 * shown in words, edited as JSON, tried on the live page (the sample is read through them), a typo refused
 * with its place, and saved as the next revision the daemon serves. Screenshot: test-results/dashboard-actions.png.
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
  temp = await makeProject(
    [
      {
        apiId: 'consent',
        url: `${site.origin}/actions/consent.html?wall=1`,
        scraper: 3,
        caching: false,
        structure: [{ name: 'items', type: 'array', selector: 'li.item', items: { type: 'string' } }],
      },
    ],
    {
      fetch: { timeoutMs: 20_000 },
    },
  );
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

describe.skipIf(skip)("the endpoint page's browser actions", () => {
  it('edits the steps as JSON, tries them on the live page, refuses a typo and saves them', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${serve.url}/ui/endpoints/consent`);
    // The settings are folded under the data and structure (issue 52): open them.
    await page.locator('details#settings > summary').click();
    const section = page.getByRole('region', { name: 'Browser actions' });
    await section.getByText('No actions: the page is read as it loads.').waitFor();

    const json = page.getByLabel('Actions as JSON');
    await json.fill('[{"ifExists":"#consent","then":[{"clik":"#accept"}]}]');
    await page.getByRole('button', { name: 'Try these actions' }).click();
    await page
      .getByText(/actions\[0\]\.then\[0\]/)
      .first()
      .waitFor();

    await json.fill('[{"ifExists":"#consent","then":[{"click":"#accept"}]}]');
    await page.getByRole('button', { name: 'Try these actions' }).click();
    await page.getByText('actions added: 1. if "#consent" is there: click "#accept"').waitFor();
    const steps = section.getByLabel('The steps in order');
    await expect.poll(() => steps.locator('li').allTextContents()).toEqual(['1 if "#consent" is there:', '1.1 click "#accept"']);
    // The live sample is read through the new steps: the list behind the wall.
    const sample = page.getByLabel('What the edited structure extracts from the page');
    await expect
      .poll(async () => JSON.parse((await sample.textContent()) ?? 'null'), { timeout: 30_000 })
      .toEqual({ items: ACTION_ITEMS.slice(0, 3) });
    await page.screenshot({ path: join(SHOTS, 'dashboard-actions.png'), fullPage: true });

    await page.getByRole('button', { name: 'Save revision 2' }).click();
    await page.getByText(/Saved revision 2/).waitFor();
    const file = JSON.parse(await readFile(join(temp.root, 'configs/consent.json'), 'utf8')) as { revision: number; actions: unknown };
    expect(file).toMatchObject({ revision: 2, actions: [{ ifExists: '#consent', then: [{ click: '#accept' }] }] });
    const validate = await execa(process.execPath, [CLI_BIN, 'validate'], { cwd: temp.root, reject: false });
    expect(validate.exitCode).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
