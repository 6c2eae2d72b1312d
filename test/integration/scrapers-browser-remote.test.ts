import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserScraper } from '../../src/core/fetch/scrapers/browser.js';
import type { Scraper, ScraperOptions } from '../../src/core/fetch/scrapers/types.js';
import { CHROMIUM_PATH, skipBrowserTests } from '../support/chromium.js';
import { browserOption, freePort, startPlaywrightServer, startRemoteBrowser, type RemoteBrowserServer } from '../support/remote-browser.js';
import type { PagejsonError } from '../../src/core/shared/errors.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Scraper 3 on a browser elsewhere (issue 51), what only a remote browser has: every request of its pages is
 * sent by pagejson (the browser's own network is never used), the address guard holds, and the faults of a
 * connection (unreachable at start, lost mid-fetch, more fetches than browser.maxSessions).
 */
const skip = skipBrowserTests();

const OPTIONS: ScraperOptions = {
  timeoutMs: 30_000,
  maxBytes: 1024 * 1024,
  allowPrivateNetworks: true,
  perOriginConcurrency: 8,
  chromiumPath: CHROMIUM_PATH,
};

/** A site whose page redirects, then loads a script, an image, a frame and an XHR; it records who asked. */
async function startRecordingSite(): Promise<{ origin: string; seen: Array<{ path: string; encoding: string }>; close(): Promise<void> }> {
  const seen: Array<{ path: string; encoding: string }> = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '/';
    seen.push({ path, encoding: String(req.headers['accept-encoding'] ?? '') });
    if (path === '/old') return res.writeHead(302, { location: '/page', 'set-cookie': 'moved=1; Path=/' }).end();
    if (path === '/page')
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<h1>Page</h1><ul id="out"></ul><img src="/img"><iframe src="/frame"></iframe><script src="/script.js"></script>' +
            '<script>fetch("/data").then(r => r.text()).then(t => { document.querySelector("#out").innerHTML = "<li>" + t + "</li>"; });</script>',
        );
    if (path === '/script.js') return res.writeHead(302, { location: '/script-moved.js' }).end();
    if (path === '/script-moved.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end('document.title = "scripted";');
    if (path === '/data') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`cookie ${req.headers.cookie ?? 'none'}`);
    if (path === '/frame') return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>frame</p>');
    if (path === '/ws-page')
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<script>const s = new WebSocket("ws://" + location.host + "/socket"); s.onclose = () => document.body.dataset.closed = "1";</script>`,
        );
    return res.writeHead(404).end();
  });
  server.on('upgrade', (req, socket) => {
    seen.push({ path: req.url ?? '', encoding: 'websocket' });
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.skipIf(skip).each(['playwright', 'cdp'] as const)('scraper 3 on a remote browser (%s)', (mode) => {
  let server: RemoteBrowserServer;
  let scraper: Scraper;

  beforeAll(async () => {
    server = await startRemoteBrowser(mode);
    scraper = createBrowserScraper({ ...OPTIONS, browser: browserOption(server) });
  }, 60_000);

  afterAll(async () => {
    await scraper?.close();
    await server?.close();
  });

  it('sends every request of the page itself: the redirect, its hop, a redirected script, the frame, the image and the XHR', async () => {
    const site = await startRecordingSite();
    try {
      const result = await scraper.fetch({ url: `${site.origin}/old` });
      expect(result.finalUrl).toBe(`${site.origin}/page`);
      expect(result.status).toBe(200);
      // The cookie of the redirect went with the page's own XHR, and the redirected script ran.
      expect(result.html).toContain('<li>cookie moved=1</li>');
      expect(result.html).toContain('<title>scripted</title>');
      const paths = site.seen.map((entry) => entry.path);
      for (const path of ['/old', '/page', '/script.js', '/script-moved.js', '/frame', '/img', '/data']) expect(paths).toContain(path);
      // pagejson asks for bodies as they are; Chromium's own requests would ask for gzip, deflate, br.
      expect(site.seen.filter((entry) => entry.encoding !== 'identity')).toEqual([]);
    } finally {
      await site.close();
    }
  });

  it('opens no WebSocket from the remote browser', async () => {
    const site = await startRecordingSite();
    try {
      const result = await scraper.fetch({ url: `${site.origin}/ws-page` });
      expect(result.status).toBe(200);
      expect(site.seen.map((entry) => entry.path)).not.toContain('/socket');
    } finally {
      await site.close();
    }
  });

  it('refuses a loopback page unless private networks are allowed, though the browser could reach it', async () => {
    const site = await startFixtureSite();
    const guarded = createBrowserScraper({ ...OPTIONS, timeoutMs: 10_000, allowPrivateNetworks: false, browser: browserOption(server) });
    try {
      // Refused by name before the browser is asked, as on a local one.
      await expect(guarded.fetch({ url: `${site.origin}/listing.html` })).rejects.toMatchObject({ code: 'FETCH_BLOCKED_ADDRESS' });
      await expect(guarded.fetch({ url: `http://localhost:${site.port}/listing.html` })).rejects.toMatchObject({
        code: 'FETCH_BLOCKED_ADDRESS',
      });
      expect(site.hitCount('/listing.html')).toBe(0);
    } finally {
      await guarded.close();
      await site.close();
    }
  });
});

describe.skipIf(skip)('scraper 3 remote browser faults', () => {
  let site: FixtureSite;

  beforeAll(async () => {
    site = await startFixtureSite();
  });

  afterAll(async () => {
    await site?.close();
  });

  it.each(['playwright', 'cdp'] as const)('names an unreachable %s browser by its URL, never by its token', async (kind) => {
    const port = await freePort();
    const url =
      kind === 'playwright'
        ? `ws://127.0.0.1:${port}/playwright?token=\${BROWSER_TOKEN}`
        : `http://127.0.0.1:${port}?token=\${BROWSER_TOKEN}`;
    const scraper = createBrowserScraper({
      ...OPTIONS,
      env: { BROWSER_TOKEN: 's3cret-token', PAGEJSON_SECRETS: 'BROWSER_TOKEN' },
      browser: { maxSessions: 1, remote: { url, kind, headers: { authorization: 'Bearer ${BROWSER_TOKEN}' } } },
    });
    try {
      const error = (await scraper.fetch({ url: `${site.origin}/listing.html` }).catch((thrown: unknown) => thrown)) as PagejsonError;
      expect(error).toMatchObject({ code: 'BROWSER_UNAVAILABLE' });
      const shown = kind === 'playwright' ? `Playwright server ws://127.0.0.1:${port}/playwright` : `CDP endpoint http://127.0.0.1:${port}`;
      expect(error.message).toContain(`the ${shown} could not be reached`);
      expect(error.hint).toMatch(/browser\.connect/);
      expect(JSON.stringify({ message: error.message, hint: error.hint, context: error.context })).not.toContain('s3cret');
    } finally {
      await scraper.close();
    }
  });

  it('fails the fetch whose connection is lost, clearly, and the next fetch connects again', async () => {
    const port = await freePort();
    let server = await startPlaywrightServer({ port, wsPath: '/fleet' });
    const scraper = createBrowserScraper({ ...OPTIONS, browser: browserOption(server) });
    try {
      expect((await scraper.fetch({ url: `${site.origin}/listing.html` })).status).toBe(200);
      const hung = site.whenHits('/faults/hang', site.hitCount('/faults/hang') + 1);
      const pending = scraper.fetch({ url: `${site.origin}/faults/hang` }).catch((thrown: unknown) => thrown);
      await hung;
      await server.close();
      expect(await pending).toMatchObject({
        code: 'BROWSER_UNAVAILABLE',
        message: `the connection to the Playwright server ws://127.0.0.1:${port}/fleet was lost during the fetch`,
      });
      server = await startPlaywrightServer({ port, wsPath: '/fleet' });
      expect((await scraper.fetch({ url: `${site.origin}/listing.html` })).status).toBe(200);
    } finally {
      await scraper.close();
      await server.close();
    }
  });

  it('keeps fetches past browser.maxSessions waiting, and fails one whose deadline passes while it waits', async () => {
    const server = await startPlaywrightServer();
    const scraper = createBrowserScraper({ ...OPTIONS, timeoutMs: 15_000, browser: browserOption(server, 1) });
    try {
      // Connected first (on a busy machine that can take most of a short deadline; it carries on regardless).
      for (let attempt = 1; ; attempt += 1) {
        const failed = await scraper.fetch({ url: `${site.origin}/product.html` }).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        if (failed === undefined) break;
        if (attempt === 3) throw failed;
      }
      site.resetHits();
      const stop = new AbortController();
      const hung = site.whenHits('/faults/hang', 1);
      const holding = scraper.fetch({ url: `${site.origin}/faults/hang`, signal: stop.signal }).catch((thrown: unknown) => thrown);
      await hung;
      const waiting = scraper.fetch({ url: `${site.origin}/listing.html` });
      // The one session is the hanging page's: the waiting fetch's page is not opened until it is free.
      const listed = site.whenHits('/listing.html', 1);
      expect(site.hitCount('/listing.html')).toBe(0);
      stop.abort();
      await holding;
      await listed;
      expect((await waiting).status).toBe(200);

      // The hanging page holds the session until its deadline; the fetch queued behind it times out unsent.
      const hungAgain = site.whenHits('/faults/hang', 2);
      const blocking = scraper.fetch({ url: `${site.origin}/faults/hang` }).catch((thrown: unknown) => thrown);
      await hungAgain;
      await expect(scraper.fetch({ url: `${site.origin}/product.html` })).rejects.toMatchObject({ code: 'FETCH_TIMEOUT' });
      await blocking;
      expect(site.hitCount('/product.html')).toBe(0);
    } finally {
      await scraper.close();
      await server.close();
    }
  });
});
