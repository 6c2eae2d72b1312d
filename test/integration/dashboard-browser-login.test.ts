import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { LOGIN_PASSWORD, loginStats } from '../support/site-routes/login.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * The endpoint page's Login section (docs/access.md, "Logins"; docs/dashboard.md) in a real browser against
 * `pagejson serve`: the login shown with its templates and a password written into the file masked, "Test
 * login" signing in afresh (the fixture counts it) and saying how it went, a refused login said in words with
 * its hint, and no secret of the daemon's environment in the page. Screenshot: test-results/dashboard-login.png.
 */
const SHOTS = join(REPO_ROOT, 'test-results');
const skip = skipBrowserTests();
let site: FixtureSite;
let temp: TempProject;
let serve: ServeProcess;
let browser: Browser;

const PRICES = [{ name: 'names', type: 'array' as const, selector: 'tr.row .name', items: { type: 'string' as const } }];

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  await mkdir(SHOTS, { recursive: true });
  site = await startFixtureSite();
  const login = {
    url: `${site.origin}/login/form`,
    form: { username: '${SITE_USER}', password: '${SITE_PASSWORD}' },
    loggedIn: 'a.logout',
  };
  temp = await makeProject([
    { apiId: 'members', url: `${site.origin}/login/members.html`, caching: false, login, structure: PRICES },
    {
      apiId: 'written',
      url: `${site.origin}/login/members.html`,
      caching: false,
      login: { ...login, form: { username: 'ada', password: 'wrong-written-pw' } },
      structure: PRICES,
    },
  ]);
  serve = await spawnServe(temp.root, [], { SITE_USER: 'ada', SITE_PASSWORD: LOGIN_PASSWORD, PAGEJSON_SECRETS: 'SITE_USER,SITE_PASSWORD' });
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
  return signInToDashboard(browser, { projectRoot: temp.root, serveUrl: serve.url, height: 1100 });
}

describe.skipIf(skip)("the endpoint page's login", () => {
  it('shows the login with templates, tests it by signing in afresh, and keeps the new session', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${serve.url}/ui/endpoints/members`);
    // The settings are folded under the data and structure (issue 52): open them.
    await page.locator('details#settings > summary').click();
    const section = page.getByRole('region', { name: 'Login' });
    await expect
      .poll(() => section.getByRole('table', { name: 'Login form fields' }).locator('tr').allTextContents())
      .toEqual(['username${SITE_USER}', 'password${SITE_PASSWORD}']);
    await section.getByText('a.logout').waitFor();
    const before = loginStats(site).logins;
    await section.getByRole('button', { name: 'Test login' }).click();
    await section.getByRole('status').filter({ hasText: 'Signed in' }).waitFor({ timeout: 30_000 });
    expect(await section.getByRole('status').textContent()).toBe(`Signed in: the page answered 200 at ${site.origin}/login/members.html`);
    expect(loginStats(site).logins).toBe(before + 1);
    expect((await stat(join(temp.project.dataDir, 'logins', 'members.json'))).mode & 0o777).toBe(0o600);
    await page.screenshot({ path: join(SHOTS, 'dashboard-login.png'), fullPage: true });
    const html = await page.content();
    expect(html).not.toContain(LOGIN_PASSWORD);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('says in words why a login failed, and masks a password written into the file', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${serve.url}/ui/endpoints/written`);
    // The settings are folded under the data and structure (issue 52): open them.
    await page.locator('details#settings > summary').click();
    const section = page.getByRole('region', { name: 'Login' });
    await expect
      .poll(() => section.getByRole('table', { name: 'Login form fields' }).locator('tr').allTextContents())
      .toEqual(['usernameada', 'password••••']);
    await section.getByRole('button', { name: 'Test login' }).click();
    const alert = section.getByRole('alert');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.locator('strong').textContent()).toBe(
      'the site answered with its login form again: the credentials were not accepted',
    );
    expect(await alert.locator('.hint').textContent()).toContain('login.form');
    expect(await page.content()).not.toContain('wrong-written-pw');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
