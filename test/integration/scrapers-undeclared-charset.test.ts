import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserScraper } from '../../src/core/fetch/scrapers/browser.js';
import { createCrawleeScraper } from '../../src/core/fetch/scrapers/crawlee.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { Scraper, ScraperOptions } from '../../src/core/fetch/scrapers/types.js';
import { CHROMIUM_PATH, skipBrowserTests } from '../support/chromium.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * A page that declares no charset (no header charset, BOM or meta tag) in windows-1252 bytes: every scraper
 * reads it as a browser does (`Menú café`, never `Men� caf�`) and says in the fetch that the charset was
 * guessed; a page that declares its charset carries no such note.
 */
const skipBrowser = skipBrowserTests();
const OPTIONS: ScraperOptions = {
  timeoutMs: 30_000,
  maxBytes: 1024 * 1024,
  allowPrivateNetworks: true,
  perOriginConcurrency: 4,
  chromiumPath: CHROMIUM_PATH,
};

let site: FixtureSite;
const scrapers: Scraper[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await Promise.all(scrapers.map((scraper) => scraper.close()));
  await site?.close();
});

const cases: Array<[string, (options: ScraperOptions) => Scraper, boolean]> = [
  ['1 (http)', createHttpScraper, false],
  ['2 (crawlee)', createCrawleeScraper, false],
  ['3 (browser)', createBrowserScraper, skipBrowser],
];

describe.each(cases)('scraper %s on a page without a declared charset', (_name, create, skip) => {
  it.skipIf(skip)(
    'reads windows-1252 bytes as windows-1252 and notes the guess; a declared charset has no note',
    async () => {
      const scraper = create(OPTIONS);
      scrapers.push(scraper);
      const page = await scraper.fetch({ url: `${site.origin}/charset/undeclared.html` });
      expect(page.html).toContain('Menú café');
      expect(page.html).toContain('Crème brûlée – 5 €');
      expect(page.html).not.toContain('\ufffd');
      expect(page.charset).toEqual({ encoding: 'windows-1252', source: 'guessed' });
      const declared = await scraper.fetch({ url: `${site.origin}/charset/meta-http-equiv.html` });
      expect(declared.charset).toBeUndefined();
    },
    60_000,
  );
});
