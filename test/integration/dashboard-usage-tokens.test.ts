import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { signInToDashboard } from '../support/dashboard-session.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * The dashboard's Usage page shows model tokens (docs/models.md, "Tokens"), in real Chromium against `pagejson
 * serve` as a process: a generation through a server that refuses json_schema (charged through the daemon's
 * admin socket) puts every answered call's tokens in the endpoint's usage, and the page shows them in its
 * totals and per endpoint. Screenshot: test-results/dashboard-usage-tokens.png.
 */
let site: FixtureSite;
let llm: FakeLlm;
let temp: TempProject;
let serve: ServeProcess;
let browser: Browser;
const skip = skipBrowserTests();

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  await mkdir(join(REPO_ROOT, 'test-results'), { recursive: true });
  site = await startFixtureSite();
  llm = await startFakeLlm([], { jsonSchema: 'refuse', usage: 'counted' });
  temp = await makeProject([], { models: { local: { baseURL: llm.baseURL, model: 'small', maxRetries: 0 } } });
  serve = await spawnServe(temp.root);
  browser = await launchTestChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.child;
  await llm?.close();
  await site?.close();
  await temp?.cleanup();
});

describe.skipIf(skip)('the Usage page with model tokens', () => {
  it('shows the tokens of every call of a generation in its totals and per endpoint', async () => {
    llm.script(['Here are the books.', { json: { structure: [replyField('heading', 'string', 'h1')] } }]);
    const generated = await execa(
      process.execPath,
      [CLI_BIN, 'generate', `${site.origin}/listing.html`, '--id', 'books', '--model', 'local', '--yes'],
      {
        cwd: temp.root,
        reject: false,
      },
    );
    expect(generated.stderr).toBe('');
    expect(generated.exitCode).toBe(0);
    const { promptTokens, completionTokens } = llm.reported;
    expect(promptTokens).toBeGreaterThan(0);

    const { page, problems } = await signInToDashboard(browser, { projectRoot: temp.root, serveUrl: serve.url });
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    await expect.poll(async () => page.locator('#stat-prompt-tokens').textContent(), { timeout: 20_000 }).toBe(String(promptTokens));
    expect(await page.locator('#stat-completion-tokens').textContent()).toBe(String(completionTokens));
    const row = page.getByRole('row', { name: /books/ });
    expect(await row.textContent()).toContain(`${promptTokens} / ${completionTokens}`);
    expect(await page.getByRole('region', { name: 'Model tokens' }).locator('canvas').count()).toBe(1);
    await page.screenshot({ path: join(REPO_ROOT, 'test-results', 'dashboard-usage-tokens.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
