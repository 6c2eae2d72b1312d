import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { XSS_TEXT } from '../support/site-routes/dashboard.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * The dashboard in a real browser (issue 18 part 7): Chromium drives the built dashboard against `pagejson
 * serve` as a process. Sign in with the link `pagejson dashboard` prints, see the endpoints, try one, turn a
 * path segment into a variable and save (the file changes, `validate` passes, the daemon serves the new
 * revision), create a key and call /external with it, revoke it, see the usage reflect the calls, generate
 * and save an endpoint, and see a page's markup rendered as text. Screenshots go to test-results/.
 */
const SHOTS = join(REPO_ROOT, 'test-results');
let site: FixtureSite;
let temp: TempProject;
let serve: ServeProcess;
let browser: Browser;

const skip = skipBrowserTests();

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  await mkdir(SHOTS, { recursive: true });
  site = await startFixtureSite();
  temp = await makeProject(
    [
      {
        apiId: 'shop',
        description: 'Items of a shop category',
        url: `${site.origin}/shop/tools/items?page=1`,
        caching: false,
        structure: [
          { name: 'heading', type: 'string', selector: 'h1' },
          {
            name: 'items',
            type: 'array',
            selector: 'li.item',
            fields: [
              { name: 'name', type: 'string', selector: '.name' },
              { name: 'price', type: 'number', selector: '.price' },
            ],
          },
        ],
      },
      {
        apiId: 'xss',
        url: `${site.origin}/xss.html`,
        caching: false,
        structure: [
          { name: 'title', type: 'string', selector: 'h1' },
          { name: 'kind', type: 'string', selector: 'p.kind' },
        ],
      },
    ],
    { credits: { enabled: true, freeCredits: 10 } },
  );
  serve = await spawnServe(temp.root);
  browser = await launchTestChromium();
});

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.child;
  await site?.close();
  await temp?.cleanup();
});

async function cli(args: string[]) {
  return execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false });
}

/** A page that fails the test on any script error, CSP violation, dialog it did not expect, or request leaving the daemon. */
async function openPage(): Promise<{ page: Page; problems: string[]; dialogs: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
  });
  await page.route('**/*', (route) =>
    route.request().url().startsWith(serve.url)
      ? route.continue()
      : (problems.push(`outside request: ${route.request().url()}`), route.abort()),
  );
  return { page, problems, dialogs };
}

async function signIn(page: Page): Promise<void> {
  const link = await cli(['dashboard', '--json']);
  expect(link.exitCode).toBe(0);
  await page.goto((JSON.parse(link.stdout) as { url: string }).url);
  await page.waitForURL(`${serve.url}/ui/`);
  await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `dashboard-${name}.png`), fullPage: true });

async function external(
  path: string,
  key: string,
): Promise<{ status: number; body: { data: unknown; errors: Array<{ message: string }> | null } }> {
  const answer = await fetch(`${serve.url}/external/${path}`, { headers: { apikey: key } });
  return { status: answer.status, body: (await answer.json()) as { data: unknown; errors: Array<{ message: string }> | null } };
}

describe.skipIf(skip)('dashboard in Chromium', () => {
  it('without a session, every page leads to the sign-in page, which says how to get a link', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${serve.url}/ui/keys`);
    await page.waitForURL(`${serve.url}/ui/login`);
    await expect(page.getByRole('heading', { name: 'pagejson dashboard' }).isVisible()).resolves.toBe(true);
    expect(await page.locator('pre.command').textContent()).toBe('pagejson dashboard');
    await shot(page, 'login');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('signs in, lists and filters endpoints, renders scraped markup as text, and works with the keyboard', async () => {
    const { page, problems, dialogs } = await openPage();
    await signIn(page);
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await shot(page, 'endpoints');
    await page.getByLabel('Filter').fill('xss');
    await expect.poll(() => rows.count()).toBe(1);

    // Keyboard only: the skip link comes first, then the navigation.
    await page.goto(`${serve.url}/ui/`);
    await expect.poll(() => rows.count()).toBe(2);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Generate');
    // Enter follows the link; focus moves to the new page's heading.
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Generate an endpoint', level: 1 }).waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('H1');

    // The XSS page: its data is markup as text. Shown as those characters; nothing runs, no element is made.
    await page.goto(`${serve.url}/ui/endpoints/xss`);
    await page.getByRole('button', { name: /^Run revision/ }).click();
    const answer = page.getByLabel("The endpoint's answer");
    await answer.waitFor();
    const shown = JSON.parse((await answer.textContent()) ?? '') as { data: { title: string; kind: string } };
    expect(shown.data.title).toBe(XSS_TEXT);
    expect(shown.data.kind).toBe('"><script>alert(2)</script>');
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    // The fetch shows in the endpoint's facts.
    await page.locator('.facts .badge.healthy').waitFor();
    await shot(page, 'xss');

    // Deactivate and activate again: each a saved revision of the file.
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.locator('.facts .badge.inactive').waitFor();
    expect(JSON.parse(await readFile(join(temp.root, 'configs/xss.json'), 'utf8'))).toMatchObject({ status: 'inactive', revision: 2 });
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.locator('.facts .badge.active').waitFor();
    expect(JSON.parse(await readFile(join(temp.root, 'configs/xss.json'), 'utf8'))).toMatchObject({ status: 'active', revision: 3 });
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('tries an endpoint, turns a path segment into a variable with a live-edited field, saves, and the daemon serves it', async () => {
    const { page, problems } = await openPage();
    await signIn(page);
    await page.getByRole('link', { name: 'shop', exact: true }).click();
    await page.getByRole('heading', { name: 'shop', level: 1 }).waitFor();

    // Try it: the live JSON and the curl command.
    await page.getByRole('button', { name: 'Run revision 1' }).click();
    const answer = page.getByLabel("The endpoint's answer");
    await answer.waitFor();
    expect(await answer.textContent()).toContain('tools item 1 (page 1)');
    expect(await page.locator('.curl code').first().textContent()).toBe(`curl -H 'apikey: <API_KEY>' ${serve.url}/external/shop`);

    // Path segment 2 ("tools") becomes the variable "category"; the field "heading" is renamed "title" and
    // its selector tried live on the page. Edit answers are held back as on a busy machine, a request the
    // page already sent once much longer than others: an answer that arrives late must not undo a later change.
    const sent = new Set<string>();
    await page.route('**/ui/api/endpoints/shop/edits', async (route) => {
      const body = route.request().postData() ?? '';
      const again = sent.has(body);
      sent.add(body);
      await new Promise((resolve) => setTimeout(resolve, again ? 1_000 : 150));
      await route.fallback();
    });
    // The settings are folded under the data and structure (issue 52): open them.
    await page.locator('details#settings > summary').click();
    await page.getByLabel('Variable name for path segment 2').fill('category');
    await page.getByLabel('Make path segment 2 dynamic').click();
    await page.getByRole('heading', { name: 'Unsaved changes' }).waitFor();
    await page.getByLabel('Name of heading').fill('title');
    await page.getByLabel('Name of heading').press('Enter');
    await page.getByLabel('Selector of title').waitFor();
    await page.getByLabel('Selector of title').fill('title');
    await page.getByLabel('Selector of title').press('Enter');
    const sample = page.getByLabel('What the edited structure extracts from the page');
    // An error shown instead of the sample is part of what the poll reports.
    const seen = async () => ({
      ...(JSON.parse((await sample.textContent()) ?? '{}') as { title?: string }),
      shownError: await page.locator('main .error').allTextContents(),
    });
    await expect.poll(seen, { timeout: 30_000 }).toMatchObject({ title: 'tools shop | Fixture', shownError: [] });
    const pending = await page.locator('.card.highlight li').allTextContents();
    expect(pending.join('\n')).toMatch(/category/);
    expect(pending.join('\n')).toMatch(/field title added \(string, selector "title"\)/);
    expect(pending.join('\n')).toMatch(/field heading removed/);
    await shot(page, 'endpoint-edit');
    await page.getByRole('button', { name: 'Save revision 2' }).click();
    await page.getByText(/Saved revision 2 to configs\/shop\.json/).waitFor();

    // The file on disk is the new revision, validate passes, and the daemon serves it at once.
    const saved = JSON.parse(await readFile(join(temp.root, 'configs/shop.json'), 'utf8')) as {
      revision: number;
      url: string;
      variables: Record<string, { example: string }>;
      structure: Array<{ name: string; selector?: string }>;
    };
    expect(saved.revision).toBe(2);
    expect(saved.url).toBe(`${site.origin}/shop/{{ category }}/items?page=1`);
    expect(saved.variables).toEqual({ category: { example: 'tools' } });
    expect(saved.structure[0]).toMatchObject({ name: 'title', selector: 'title' });
    const validate = await cli(['validate']);
    expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
    const revisions = await page.locator('.revisions > li').allTextContents();
    expect(revisions[0]).toContain('Revision 2');
    expect(revisions[0]).toMatch(/category/);
    expect(revisions[1]).toContain('Revision 1');
    await page.locator('.revisions > li').first().getByText('File diff').click();
    const diff = page.getByLabel('Diff of revision 2 against revision 1');
    expect(await diff.locator('.add').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('{{ category }}')]));

    const key = await cli(['keys', 'create', '--json']);
    const { key: value } = JSON.parse(key.stdout) as { key: string };
    const served = await external('shop?category=garden', value);
    expect(served.status).toBe(200);
    expect(served.body.data).toMatchObject({
      title: 'garden shop | Fixture',
      items: [{ name: 'garden item 1 (page 1)', price: 10.5 }, { name: 'garden item 2 (page 1)' }, { name: 'garden item 3 (page 1)' }],
    });
    await shot(page, 'endpoint-saved');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('creates a key shown once, which calls /external; revokes it; the usage page counts the calls', async () => {
    const { page, problems, dialogs } = await openPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByLabel('Label').fill('browser-test');
    await page.getByRole('checkbox', { name: 'xss' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('code.secret');
    await secret.waitFor();
    const key = (await secret.textContent()) ?? '';
    expect(key).toMatch(/^pj_[A-Za-z0-9]{47}$/);
    expect(await page.getByText('Copy it now: it will not be shown again.').isVisible()).toBe(true);
    await shot(page, 'keys-created');

    const before = await external('xss', key);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ title: XSS_TEXT });
    // Its scope is xss alone.
    expect((await external('shop?category=tools', key)).status).not.toBe(200);
    await external('xss', key);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    // Shown once: the list never holds the key itself.
    expect(await page.locator('main').textContent()).not.toContain(key);
    const row = page.locator('tbody tr', { hasText: 'browser-test' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('revoked').waitFor();
    // The key is named by its label, with its id.
    expect(dialogs.some((text) => text.startsWith('Revoke browser-test (k_'))).toBe(true);
    const after = await external('xss', key);
    expect(after.status).toBe(401);
    await shot(page, 'keys');

    // Usage: the calls of this key (two answered, one refused by scope) appear once the daemon's usage buffer
    // flushed (every second).
    const keyId = (await row.locator('th code').textContent()) ?? '';
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    await expect
      .poll(
        async () => {
          await page.getByLabel('Key').selectOption('');
          await page.getByLabel('Key').selectOption(keyId);
          return Number(await page.locator('#stat-requests').textContent());
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(2);
    expect(await page.locator('.chart canvas').count()).toBeGreaterThanOrEqual(2);
    await page.getByLabel('Key').selectOption('');
    await shot(page, 'usage');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('generates an endpoint from a page, edits it live and saves it, charging the generation credits', async () => {
    const { page, problems } = await openPage();
    await signIn(page);
    const balance = async () => (JSON.parse((await cli(['credits', '--json'])).stdout) as { balance: number }).balance;
    const before = await balance();
    await page.getByRole('link', { name: 'Generate', exact: true }).click();
    await page.getByLabel('Page URL').fill(`${site.origin}/listing.html`);
    await page.getByLabel(/^API id/).fill('listing');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.getByRole('heading', { name: 'Proposal: listing' }).waitFor({ timeout: 30_000 });
    const sample = page.getByLabel('What the proposal extracts from the page');
    expect((await sample.textContent())?.length).toBeGreaterThan(20);
    // The proposal's URL has its toggles too, before anything is saved.
    expect(await page.getByLabel('Make path segment 1 dynamic').isChecked()).toBe(false);
    await shot(page, 'generate');
    await page.getByRole('button', { name: 'Save as listing' }).click();
    await page.getByText(/Saved .*configs\/listing\.json/).waitFor();
    const saved = JSON.parse(await readFile(join(temp.root, 'configs/listing.json'), 'utf8')) as { apiId: string; revision: number };
    expect(saved).toMatchObject({ apiId: 'listing', revision: 1 });
    expect(Math.round((before - (await balance())) * 1000)).toBe(250);
    const usage = JSON.parse((await cli(['usage', '--api', 'listing', '--json'])).stdout) as Array<{
      keyId: string | null;
      milliCredits: number;
    }>;
    expect(usage).toEqual([expect.objectContaining({ keyId: null, milliCredits: 250 })]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('has no serious accessibility violations on any page (axe-core, WCAG 2 A and AA)', async () => {
    // axe is injected as a script, which the dashboard's CSP rightly refuses: this one context bypasses it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    const link = JSON.parse((await cli(['dashboard', '--json'])).stdout) as { url: string };
    await page.goto(link.url);
    await page.waitForURL(`${serve.url}/ui/`);
    const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const found: string[] = [];
    for (const [path, ready] of [
      ['/ui/', 'table.list tbody tr'],
      ['/ui/endpoints/shop', '.tree'],
      ['/ui/generate', 'form.generate'],
      ['/ui/keys', 'form.create-key'],
      ['/ui/usage', '.chart canvas'],
      ['/ui/login', 'pre.command'],
    ] as const) {
      await page.goto(`${serve.url}${path}`);
      await page.locator(ready).first().waitFor();
      await page.addScriptTag({ content: source });
      const result = (await page.evaluate(
        "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] }).then((r) => ({ passes: r.passes.length, violations: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')) }))",
      )) as { passes: number; violations: string[] };
      // axe really looked: rules passed on every page.
      expect(result.passes, path).toBeGreaterThan(5);
      found.push(...result.violations.map((violation) => `${path} ${violation}`));
    }
    expect(found).toEqual([]);
    await context.close();
  });
});
