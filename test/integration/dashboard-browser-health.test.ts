import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * The dashboard's health (issue 33) in a real browser against `pagejson serve`: `pagejson check` run beside the
 * daemon records through it; once the page's item container is renamed, the endpoints list and the endpoint
 * page say what changed, field by field, with the way out (`pagejson heal`), and its last fetch is not "never".
 * Screenshot: test-results/dashboard-health.png.
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
      apiId: 'furniture',
      url: `${site.origin}/health/products`,
      structure: [
        { name: 'heading', type: 'string', selector: 'h1' },
        {
          name: 'products',
          type: 'array',
          selector: 'div.products > article.product',
          fields: [
            { name: 'title', type: 'string', selector: 'a.title' },
            { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
          ],
        },
      ],
    },
  ]);
  serve = await spawnServe(temp.root);
  browser = await launchTestChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.child;
  await site?.close();
  await temp?.cleanup();
});

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });

describe.skipIf(skip)("the dashboard's health", () => {
  it('shows the findings of a degraded endpoint on the list and its page, with heal as the way out', async () => {
    expect((await cli('check', 'furniture')).exitCode).toBe(0);
    site.state.set('products', '2');
    expect((await cli('check', 'furniture')).exitCode).toBe(1);

    const { page, problems } = await signInToDashboard(browser, { projectRoot: temp.root, serveUrl: serve.url, height: 900 });
    await page.goto(`${serve.url}/ui/`);
    await page.getByText('products: empty (had at least 6 items in every good observation)').first().waitFor();
    expect(await page.getByText('not fetched yet').count()).toBe(0);

    await page.goto(`${serve.url}/ui/endpoints/furniture`);
    const findings = page.getByRole('status').filter({ hasText: 'what changed, field by field' });
    await findings.getByText('products: empty (had at least 6 items in every good observation)').waitFor();
    await findings.getByText('pagejson heal furniture').waitFor();
    expect(await page.getByText(/last fetch never/).count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'dashboard-health.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
