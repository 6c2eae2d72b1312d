import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { skipBrowserTests } from '../support/chromium.js';
import { startPlaywrightServer, type RemoteBrowserServer } from '../support/remote-browser.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * Issue 51 in use: a daemon whose pagejson.json points scraper 3 at a Playwright server serves a scraper-3
 * endpoint through it; `/readyz` and `pagejson status` say which browser scraper 3 uses and whether it answers.
 */
const skip = skipBrowserTests();

describe.skipIf(skip)('a daemon on a remote browser', () => {
  let site: FixtureSite;
  let browser: RemoteBrowserServer;
  let temp: TempProject;
  let server: RunningServer;

  beforeAll(async () => {
    await ensureBuilt();
    site = await startFixtureSite();
    browser = await startPlaywrightServer();
    temp = await makeProject([pageConfig('rendered', `${site.origin}/listing.html`, { scraper: 3 })], {
      fetch: { allowPrivateNetworks: true, timeoutMs: 60_000 },
      browser: { connect: browser.url, maxSessions: 2 },
    });
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false }, env: {} });
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await browser?.close();
    await site?.close();
    await temp?.cleanup();
  });

  it('serves a scraper-3 endpoint through the Playwright server, and /readyz says it uses it and it answers', async () => {
    const { key } = await issueKey(server.runtime.store);
    const answer = await fetch(`${server.url}/external/rendered`, { headers: { apikey: key } });
    expect(answer.status).toBe(200);
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { data: { status: string; browser: unknown } };
    expect(ready.data).toMatchObject({ status: 'ready', browser: { uses: 'playwright', answers: true } });
    // Where the fleet is stays with the operator: not in an answer anyone reaching /readyz can read.
    expect(JSON.stringify(ready)).not.toContain(String(new URL(browser.url).port));
  });

  it('`pagejson status` names the browser without its token and says whether it answers', async () => {
    const token = 's3cret-fleet-token';
    const url = `${browser.url}?token=\${FLEET_TOKEN}`;
    const run = (connect: string) =>
      execa(process.execPath, [CLI_BIN, 'status', '--json', '--project', temp.root], {
        reject: false,
        env: { PAGEJSON_BROWSER_URL: connect, FLEET_TOKEN: token, PAGEJSON_SECRETS: 'FLEET_TOKEN' },
      });
    const up = await run(url);
    expect(up.exitCode, up.stderr).toBe(0);
    // The server's random path is its capability: shown as …, like a token.
    const shown = new URL(browser.url);
    expect(up.stdout).not.toContain(shown.pathname);
    expect(JSON.parse(up.stdout).browser).toEqual({
      browser: `Playwright server ws://${shown.host}/…`,
      uses: 'playwright',
      answers: true,
    });
    expect(up.stdout).not.toContain(token);

    const down = await run(`ws://127.0.0.1:9/nothing?token=\${FLEET_TOKEN}`);
    const probe = JSON.parse(down.stdout).browser as { answers: boolean; problem: string };
    expect(probe).toMatchObject({ uses: 'playwright', answers: false });
    expect(probe.problem).toContain('the Playwright server ws://127.0.0.1:9/nothing could not be reached');
    expect(down.stdout).not.toContain(token);
  });
});
