import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserScraper } from '../../src/core/fetch/scrapers/browser.js';
import { createCrawleeScraper } from '../../src/core/fetch/scrapers/crawlee.js';
import type { Scraper, ScraperOptions } from '../../src/core/fetch/scrapers/types.js';
import { CHROMIUM_PATH, skipBrowserTests } from '../support/chromium.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Scrapers 2 and 3 as request/response functions over their long-lived clients (got-scraping's agents, one
 * Chromium), on the fixture site: the first fetch is answered at once, the process's signal handlers are
 * left alone, concurrent rounds are all served, a refused request is retried, a fetch ends at its deadline,
 * and close() settles what is pending and refuses new work. (These held for the keepAlive seam over
 * Crawlee's crawlers before; docs/decisions.md, "Scrapers 2 (crawlee) and 3 (browser)".)
 */
const OPTIONS: ScraperOptions = {
  timeoutMs: 30_000,
  maxBytes: 1024 * 1024,
  allowPrivateNetworks: true,
  perOriginConcurrency: 4,
  chromiumPath: CHROMIUM_PATH,
};
const skipBrowser = skipBrowserTests();
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await site?.close();
});

const scrapers: Array<[string, (options: ScraperOptions) => Scraper, boolean]> = [
  ['scraper 2 (crawlee)', createCrawleeScraper, false],
  ['scraper 3 (browser)', createBrowserScraper, skipBrowser],
];

describe.each(scrapers)('%s', (_name, create, skip) => {
  it.skipIf(skip)(
    'answers the very first fetch and leaves the process SIGINT handlers as they were',
    async () => {
      // Loading the client may install signal-exit's listener (harmless: it re-raises when alone); count after it.
      await create(OPTIONS).close();
      const sigintBefore = process.listenerCount('SIGINT');
      const scraper = create(OPTIONS);
      try {
        const result = await scraper.fetch({ url: `${site.origin}/listing.html` });
        expect(result.html).toContain('<html');
        expect(process.listenerCount('SIGINT')).toBe(sigintBefore);
      } finally {
        await scraper.close();
      }
    },
    120_000,
  );

  it.skipIf(skip)(
    'rejects what is still pending when closed, and refuses new work afterwards',
    async () => {
      const scraper = create(OPTIONS);
      await scraper.fetch({ url: `${site.origin}/listing.html` });
      // Closed while the request is at the source (the site has seen it), not before it was sent.
      const hung = site.whenHits('/faults/hang', site.hitCount('/faults/hang') + 1);
      const pending = scraper.fetch({ url: `${site.origin}/faults/hang` }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await hung;
      await scraper.close();
      expect(await pending).toMatchObject({ code: 'FETCH_FAILED', message: 'the scraper is closed' });
      await expect(scraper.fetch({ url: `${site.origin}/listing.html` })).rejects.toMatchObject({ message: 'the scraper is closed' });
    },
    120_000,
  );
});

describe.skipIf(skipBrowser)('scraper 3 (browser) closing with fetches queued', () => {
  it('settles the fetches rendering and the ones waiting for a page alike', async () => {
    const scraper = createBrowserScraper(OPTIONS);
    await scraper.fetch({ url: `${site.origin}/listing.html` });
    // Three pages render at once; the other two wait in the scraper's queue. Closed once the three are at the source.
    const rendering = site.whenHits('/faults/hang', site.hitCount('/faults/hang') + 3);
    const pending = Array.from({ length: 5 }, () =>
      scraper.fetch({ url: `${site.origin}/faults/hang` }).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    await rendering;
    await scraper.close();
    for (const outcome of await Promise.all(pending))
      expect(outcome).toMatchObject({ code: 'FETCH_FAILED', message: 'the scraper is closed' });
  }, 120_000);
});

describe('scraper 2 (crawlee) over many fetches', () => {
  let scraper: Scraper;

  beforeAll(() => {
    scraper = createCrawleeScraper({ ...OPTIONS, timeoutMs: 10_000 });
  });

  afterAll(async () => {
    await scraper?.close();
  });

  it('serves every fetch of concurrent rounds', async () => {
    site.resetHits();
    for (let round = 0; round < 10; round += 1) {
      const pages = await Promise.all(Array.from({ length: 10 }, () => scraper.fetch({ url: `${site.origin}/table.html` })));
      expect(pages.every((page) => page.html.includes('<table'))).toBe(true);
    }
    expect(site.hitCount('/table.html')).toBe(100);
  });

  it('retries a refused request and serves it', async () => {
    site.resetHits();
    const page = await scraper.fetch({ url: `${site.origin}/fingerprint/flaky.html?status=503&token=${randomUUID()}` });
    expect(page.html).toContain('Served on a retry');
    expect(site.hitCount('/fingerprint/flaky.html')).toBe(2);
  });

  it('times out at the fetch deadline with FETCH_TIMEOUT', async () => {
    const short = createCrawleeScraper({ ...OPTIONS, timeoutMs: 300 });
    try {
      await short.fetch({ url: `${site.origin}/listing.html` });
      await expect(short.fetch({ url: `${site.origin}/faults/hang` })).rejects.toMatchObject({
        code: 'FETCH_TIMEOUT',
        message: 'timed out after 300 ms',
      });
    } finally {
      await short.close();
    }
  });
});
