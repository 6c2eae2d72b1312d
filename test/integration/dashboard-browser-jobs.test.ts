import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * The dashboard's Jobs page (issue 50) in Chromium against a daemon started in this process: a finished job
 * and one under way are listed with their progress and counts, the finished one's failures by reason, its
 * results downloaded as CSV, the running one cancelled from the page; axe-core finds no serious violation.
 * One browser, one sign-in, one page load after it. Screenshot: test-results/dashboard-jobs.png.
 */
const SHOTS = join(REPO_ROOT, 'test-results');
const skip = skipBrowserTests();
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  await mkdir(SHOTS, { recursive: true });
  site = await startFixtureSite();
  const item = (apiId: string, query: string) => ({
    apiId,
    url: `${site.origin}/jobs/item?id={{id}}${query}`,
    caching: false,
    variables: { id: { example: '1' } },
    structure: [{ name: 'title', type: 'string' as const, selector: 'h1' }],
  });
  // `slow` items take 400 ms each, so a job of 100 of them one at a time is still under way when it is cancelled.
  temp = await makeProject([item('item', ''), item('slow', '&ms=400')], { jobs: { minDelayMs: 0 } });
  server = await startServer({
    project: temp.project,
    host: '127.0.0.1',
    port: 0,
    watch: false,
    app: { logger: false, dashboardAssetsDir: join(REPO_ROOT, 'dist/dashboard') },
  });
  browser = await launchTestChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await site?.close();
  await temp?.cleanup();
});

async function startJob(key: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${server.url}/jobs`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

describe.skipIf(skip)("the dashboard's Jobs page", () => {
  it('lists jobs with progress and counts, shows failures by reason, downloads results and cancels a running job', async () => {
    const { key } = await issueKey(server.runtime.store, { freeCredits: 100, account: 'jobs' });
    const finished = await startJob(key, { apiId: 'item', inputs: [{ id: 'a' }, { id: 'b' }, { id: '404' }, { nope: 'x' }] });
    await vi.waitFor(async () => expect((await server.runtime.jobs.get(finished))?.finishedAt).toBeDefined(), { timeout: 30_000 });
    const running = await startJob(key, {
      apiId: 'slow',
      inputs: Array.from({ length: 100 }, (_, index) => ({ id: `slow${index}` })),
      concurrency: 1,
    });

    // axe is injected as a script, which the dashboard's CSP rightly refuses: this context bypasses it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true, acceptDownloads: true });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // 4xx answers show in the console too (the browser's own favicon.ico); the dashboard API's are counted apart.
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    page.on('response', (response) => {
      if (response.url().includes('/ui/api/') && response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(server.app.dashboardLoginLink()!.url);
    await page.waitForURL(`${server.url}/ui/`);
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();

    const done = page.locator('tbody tr', { hasText: finished });
    await done.getByText('done', { exact: true }).waitFor();
    expect(await done.locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['2', '1', '1', '0.8']));
    expect(await done.getByText('4 of 4').count()).toBe(1);
    const under = page.locator('tbody tr', { hasText: running });
    await under.getByText('running', { exact: true }).waitFor();
    expect(await under.locator('progress').getAttribute('max')).toBe('100');

    await page.getByRole('button', { name: `Reasons of ${finished}` }).click();
    const reasons = page.locator('section', { hasText: `Why inputs of ${finished} gave no data` });
    await reasons.locator('tbody tr').first().waitFor();
    const rows = await reasons.locator('tbody tr').allInnerTexts();
    expect(rows.map((text) => text.split('\t').slice(0, 3).join(' '))).toEqual(['FETCH_STATUS error 1', 'VARIABLE_MISSING skipped 1']);

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: `Download the results of ${finished} as CSV` }).click();
    const file = await (await download).path();
    const csv = (await readFile(file, 'utf8')).trim().split('\n');
    expect(csv[0]!.split(',').sort()).toEqual(['data.title', 'error', 'fetchedAt', 'health', 'index', 'input.id', 'input.nope', 'outcome']);
    expect(csv).toHaveLength(5);
    expect(csv.filter((line) => line.includes(',data,'))).toHaveLength(2);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Cancel ${running}` }).click();
    await under.getByText('cancelled', { exact: true }).waitFor();
    const cancelled = (await server.runtime.jobs.get(running))!;
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.counts.done + cancelled.counts.failed + cancelled.counts.skipped).toBe(100);
    expect(cancelled.counts.skipped).toBeGreaterThan(50);
    expect(await under.getByRole('button', { name: `Cancel ${running}` }).count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'dashboard-jobs.png'), fullPage: true });

    await page.addScriptTag({ content: await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8') });
    const audit = (await page.evaluate(
      "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] }).then((r) => ({ passes: r.passes.length, violations: r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')) }))",
    )) as { passes: number; violations: string[] };
    expect(audit.passes).toBeGreaterThan(5);
    expect(audit.violations).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
