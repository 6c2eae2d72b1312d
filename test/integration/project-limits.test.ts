import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type TempProject } from './daemon-support.js';

/**
 * The document limits of pagejson.json (extraction.maxElements, maxDepth) hold for every command that parses a
 * page, `heal` and the dashboard's generation included; a daemon's reload names each setting of pagejson.json
 * that changed and says it needs a restart (docs/decisions.md, "Project settings on reload").
 */
let site: FixtureSite;
let temp: TempProject | undefined;
let server: RunningServer | undefined;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

const MAX_ELEMENTS = 40;
const limitError = `extraction stopped: the page has more than ${MAX_ELEMENTS} elements (extraction.maxElements in pagejson.json)`;

const listing = (): ApiConfigInput => ({
  apiId: 'books',
  url: `${site.origin}/listing.html`,
  structure: [
    { name: 'title', type: 'string', selector: 'h1.renamed' },
    { name: 'books', type: 'array', selector: 'article.product_pod h3 a', items: { type: 'string' } },
  ],
  generated: {
    at: '2026-11-01T00:00:00Z',
    model: 'heuristic',
    scraper: 1,
    sample: { title: 'All products', books: ['A Light in the Attic'] },
  },
});

const cli = (...args: string[]) =>
  execa(process.execPath, [CLI_BIN, ...args], { cwd: temp!.root, reject: false, env: { NO_COLOR: '1' }, timeout: 60_000 });

describe("the project's document limits", () => {
  it('heal parses the page within extraction.maxElements', { timeout: 90_000 }, async () => {
    temp = await makeProject([listing()], { extraction: { maxElements: MAX_ELEMENTS } });
    const healed = await cli('heal', 'books', '--yes');
    expect(healed.stderr).toContain(`error: ${limitError}`);
    expect(healed.stderr).toContain('a running `pagejson serve` takes it when restarted');
    expect(healed.exitCode).toBe(1);
    // Within the limits (the default), the same repair works.
    await writeFile(join(temp.root, 'pagejson.json'), JSON.stringify({ fetch: { allowPrivateNetworks: true } }));
    const repaired = await cli('heal', 'books', '--yes');
    expect(repaired.stderr).not.toContain('extraction stopped');
  });

  it("the dashboard's generation parses the page within extraction.maxElements", { timeout: 90_000 }, async () => {
    temp = await makeProject([], { extraction: { maxElements: MAX_ELEMENTS } });
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    const link = server.app.dashboardLoginLink()!;
    const signIn = await fetch(link.url.replace(/^http:\/\/[^/]+/, server.url), { redirect: 'manual' });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const { csrf } = (await (await fetch(`${server.url}/ui/api/session`, { headers: { cookie } })).json()) as { csrf: string };
    const answer = await fetch(`${server.url}/ui/api/generate`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-pagejson-csrf': csrf },
      body: JSON.stringify({ url: `${site.origin}/listing.html`, apiId: 'books' }),
    });
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'EXTRACTION_LIMIT', message: limitError });
  });
});

describe("a daemon's reload and pagejson.json", () => {
  it('names each changed setting as needing a restart, and says when the file no longer reads', { timeout: 60_000 }, async () => {
    temp = await makeProject([listing()]);
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    expect(await server.reload()).toEqual({ restartNeeded: [] });
    const file = join(temp.root, 'pagejson.json');
    const settings = JSON.parse(await readFile(file, 'utf8')) as Record<string, Record<string, unknown>>;
    settings.extraction = { maxElements: 5_000 };
    settings.fetch = { ...settings.fetch, timeoutMs: 7_000 };
    await writeFile(file, JSON.stringify(settings));
    expect(await server.reload()).toEqual({ restartNeeded: ['extraction.maxElements', 'fetch.timeoutMs'] });
    // The running daemon keeps its settings until it restarts.
    expect(server.runtime.settings.extraction.maxElements).toBe(200_000);
    await writeFile(file, '{ "fetch": ');
    expect(await server.reload()).toMatchObject({ unreadable: expect.stringContaining('pagejson.json is not valid JSON') });
  });

  it('pagejson serve says it on SIGHUP, setting by setting', { timeout: 60_000 }, async () => {
    temp = await makeProject([listing()]);
    const serve = await spawnServe(temp.root);
    try {
      const file = join(temp.root, 'pagejson.json');
      const settings = JSON.parse(await readFile(file, 'utf8')) as Record<string, Record<string, unknown>>;
      settings.extraction = { maxElements: 5_000 };
      await writeFile(file, JSON.stringify(settings));
      serve.child.kill('SIGHUP');
      await expect
        .poll(() => serve.stderr(), { timeout: 20_000 })
        .toContain('pagejson.json: extraction.maxElements changed; it takes effect when `pagejson serve` is restarted');
      expect(serve.stderr()).not.toContain('fetch.');
    } finally {
      serve.child.kill('SIGTERM');
      await serve.child;
    }
  });
});
