import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

const options = { timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 };
const WINDOWS_1252_TEXT = 'Café crème — “quoted” costs €5 ‰ naïve';
const SHIFT_JIS_TEXT = '東京の天気は晴れです。ｶﾀｶﾅ';

describe('http scraper charset decoding', () => {
  let site: FixtureSite;
  let scraper: Scraper;

  beforeAll(async () => {
    site = await startFixtureSite();
    scraper = createHttpScraper(options);
  });
  afterAll(async () => {
    await scraper.close();
    await site.close();
  });

  const html = async (path: string) => (await scraper.fetch({ url: `${site.origin}${path}` })).html;

  it('decodes windows-1252 by the header charset (€, curly quotes and dashes live in 0x80–0x9F)', async () => {
    expect(await html('/charset/windows-1252.html')).toContain(WINDOWS_1252_TEXT);
  });

  it('decodes Shift_JIS by the header charset', async () => {
    const page = await html('/charset/shift_jis.html');
    expect(page).toContain(SHIFT_JIS_TEXT);
    expect(page).toContain('<h1>Shift_JIS ページ</h1>');
  });

  it('finds the charset in <meta charset> when the header has none', async () => {
    expect(await html('/charset/meta-charset.html')).toContain(SHIFT_JIS_TEXT);
  });

  it('finds the charset in <meta http-equiv="Content-Type">', async () => {
    expect(await html('/charset/meta-http-equiv.html')).toContain(WINDOWS_1252_TEXT);
  });

  it('lets a byte order mark win over a wrong header', async () => {
    const page = await html('/charset/bom-utf16le.html');
    expect(page).toContain('Grüße aus Köln — 東京');
    expect(page).toContain('<h1>BOM page ✓</h1>');
    expect(page.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('decodes the static windows-1252 fixture page of the site', async () => {
    const page = await html('/latin1.windows-1252.html');
    expect(page).toContain('<li class="price-eur">€14.90</li>');
    expect(page).toContain('Crème brûlée “maison” – déjà prête.');
  });
});
