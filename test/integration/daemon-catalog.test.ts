import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { REPO_ROOT } from '../support/build-once.js';
import { launchTestChromium, skipBrowserTests } from '../support/chromium.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/** What a key may call (issue 12): the endpoint listing, each endpoint's schema, /openapi.json and /docs. */
let site: FixtureSite;
let temp: TempProject;
const servers: RunningServer[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
});

async function start(settings = {}): Promise<RunningServer> {
  temp = await makeProject(
    [
      pageConfig('books', `${site.origin}/daemon/echo?name={{ name }}`, { variables: { name: { example: 'x', pattern: '^[a-z]+$' } } }),
      pageConfig('static', `${site.origin}/daemon/echo?name=fixed`, { caching: false }),
      pageConfig('off', `${site.origin}/daemon/echo?name=off`, { status: 'inactive' }),
    ],
    settings,
  );
  const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
  servers.push(server);
  return server;
}

describe('endpoint listing and schemas on the wire', () => {
  it("answers the key rows first, then lists the active endpoints in the key's scope", async () => {
    const server = await start();
    expect((await fetch(`${server.url}/external`)).status).toBe(401);
    expect(await (await fetch(`${server.url}/external`)).json()).toEqual({
      data: null,
      errors: [{ message: 'Path: apikey -  Message: Required', code: 'KEY_MISSING' }],
    });
    expect(await (await fetch(`${server.url}/external`, { headers: { apikey: 'pj_wrong' } })).json()).toEqual({
      data: null,
      errors: [{ message: 'invalid key', code: 'KEY_INVALID' }],
    });
    const all = await issueKey(server.runtime.store);
    const listed = (await (await fetch(`${server.url}/external`, { headers: { apikey: all.key } })).json()) as {
      data: { endpoints: Array<Record<string, unknown>> };
      errors: null;
    };
    expect(listed.errors).toBeNull();
    expect(listed.data.endpoints).toEqual([
      {
        apiId: 'books',
        description: 'Data extracted from a web page as JSON (title, kind).',
        methods: ['POST', 'GET'],
        variables: [{ name: 'name', example: 'x', pattern: '^[a-z]+$' }],
        cached: true,
        credits: '0.4',
        hitCredits: '0.4',
        price: '0.4 credits a call, from the source or the cache alike',
        schema: '/external/books/schema',
      },
      {
        apiId: 'static',
        description: 'Data extracted from a web page as JSON (title, kind).',
        methods: ['GET', 'POST'],
        variables: [],
        cached: false,
        credits: '0.4',
        hitCredits: '0.4',
        price: '0.4 credits a call, from the source or the cache alike',
        schema: '/external/static/schema',
      },
    ]);
    // Without docs.sourceUrls a key holder learns nothing of the pages the endpoints come from.
    expect(JSON.stringify(listed)).not.toContain(site.origin);
    expect(JSON.stringify(listed)).not.toContain('/daemon/echo');
    const scoped = await issueKey(server.runtime.store, { scope: ['static'] });
    const narrow = (await (await fetch(`${server.url}/external`, { headers: { apikey: scoped.key } })).json()) as {
      data: { endpoints: Array<{ apiId: string }> };
    };
    expect(narrow.data.endpoints.map((e) => e.apiId)).toEqual(['static']);
    // Schemas: in scope, the data schema; out of scope or inactive, `no data`; listing is free.
    const schema = (await (await fetch(`${server.url}/external/static/schema`, { headers: { apikey: scoped.key } })).json()) as {
      data: { type: string; properties: Record<string, unknown> };
    };
    expect(schema.data).toMatchObject({ type: 'object', properties: { title: {}, kind: {} } });
    expect((await fetch(`${server.url}/external/books/schema`, { headers: { apikey: scoped.key } })).status).toBe(404);
    expect((await fetch(`${server.url}/external/off/schema`, { headers: { apikey: all.key } })).status).toBe(404);
    expect((await server.runtime.store.getAccount('default'))?.balance).toBe(100_000);
  });

  it('serves /openapi.json to a key only, with the endpoints it may call and no source URLs; none of it with docs.enabled false', async () => {
    const server = await start();
    // The probe's request (issue 40, item 8): no key, and the whole API with its source URLs came back.
    const anonymous = await fetch(`${server.url}/openapi.json`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ data: null, errors: [{ message: 'Path: apikey -  Message: Required', code: 'KEY_MISSING' }] });
    expect((await fetch(`${server.url}/openapi.json`, { headers: { apikey: 'pj_wrong' } })).status).toBe(401);
    const all = await issueKey(server.runtime.store);
    const response = await fetch(`${server.url}/openapi.json`, { headers: { apikey: all.key } });
    expect(response.headers.get('cache-control')).toBe('no-store');
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      servers: Array<{ url: string }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/external/books', '/external/static']));
    expect(doc.servers[0]!.url).toBe(server.url);
    // What the key may call: active endpoints only; and nowhere the pages they come from.
    expect(Object.keys(doc.paths)).toEqual(['/external/books', '/external/static']);
    expect(JSON.stringify(doc)).not.toContain(site.origin);
    expect(JSON.stringify(doc)).not.toContain('/daemon/echo');
    const scoped = await issueKey(server.runtime.store, { scope: ['static'] });
    const narrow = (await (await fetch(`${server.url}/openapi.json`, { headers: { apikey: scoped.key } })).json()) as typeof doc;
    expect(Object.keys(narrow.paths)).toEqual(['/external/static']);
    expect(Object.keys(narrow.components.schemas).filter((name) => name.startsWith('books.'))).toEqual([]);
    expect(JSON.stringify(narrow)).not.toContain('^[a-z]+$');
    await server.close();
    servers.length = 0;
    await temp.cleanup();
    const off = await start({ docs: { enabled: false } });
    expect((await fetch(`${off.url}/openapi.json`)).status).toBe(404);
    expect((await fetch(`${off.url}/docs`)).status).toBe(404);
  });

  it('shows the source URLs when the operator turns docs.sourceUrls on', async () => {
    const server = await start({ docs: { sourceUrls: true } });
    const { key } = await issueKey(server.runtime.store);
    const doc = (await (await fetch(`${server.url}/openapi.json`, { headers: { apikey: key } })).json()) as {
      paths: Record<string, { get: { summary: string; description: string } }>;
    };
    expect(doc.paths['/external/static']!.get.summary).toBe(`static: data extracted from ${site.origin}/daemon/echo?name=fixed`);
    expect(doc.paths['/external/static']!.get.description).toContain(`Source: ${site.origin}/daemon/echo?name=fixed (scraper 1)`);
    // The endpoint listing follows the same setting.
    const listed = (await (await fetch(`${server.url}/external`, { headers: { apikey: key } })).json()) as {
      data: { endpoints: Array<{ apiId: string; description: string }> };
    };
    expect(listed.data.endpoints.map((endpoint) => endpoint.description)).toEqual([
      `Data extracted from ${site.origin}/daemon/echo?name={name} as JSON (title, kind).`,
      `Data extracted from ${site.origin}/daemon/echo?name=fixed as JSON (title, kind).`,
    ]);
  });

  it.skipIf(skipBrowserTests())('renders /docs in Chromium, offline, with every operation (screenshot kept)', async () => {
    const server = await start();
    const browser = await launchTestChromium();
    try {
      const page = await browser.newPage();
      // Offline: any request leaving the daemon fails the test.
      const outside: string[] = [];
      await page.route('**/*', (route) =>
        route.request().url().startsWith(server.url) ? route.continue() : (outside.push(route.request().url()), route.abort()),
      );
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${server.url}/docs`);
      // The page holds nothing until a key is given; a wrong one is told in the page.
      expect(await page.locator('.opblock').count()).toBe(0);
      await page.fill('#pagejson-apikey', 'pj_wrong');
      await page.click('#pagejson-key button');
      await page.waitForFunction("document.getElementById('pagejson-key-error')?.textContent === 'invalid key'");
      const { key } = await issueKey(server.runtime.store);
      await page.fill('#pagejson-apikey', key);
      await page.click('#pagejson-key button');
      await page.waitForSelector('.opblock', { timeout: 15_000 });
      expect(await page.title()).toBe('pagejson API reference');
      const operations = await page.locator('.opblock-summary-path').allTextContents();
      expect(operations.map((text) => text.replace(/\u200b/g, ''))).toEqual(
        expect.arrayContaining(['/external/books', '/external/static']),
      );
      const dir = join(REPO_ROOT, 'test-results');
      await mkdir(dir, { recursive: true });
      await page.screenshot({ path: join(dir, 'docs.png'), fullPage: true });
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
