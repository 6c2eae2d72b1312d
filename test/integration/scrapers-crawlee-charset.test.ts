import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrawleeScraper } from '../../src/core/fetch/scrapers/crawlee.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Scraper 2 hands Crawlee's decoding over to ours (Crawlee decodes everything it cannot name as UTF-8), so it
 * is held to the same charset cases as scraper 1: header, meta tag, http-equiv, BOM, compressed bodies,
 * untyped bodies judged by sniffing.
 */
const WINDOWS_1252_TEXT = 'Café crème — “quoted” costs €5 ‰ naïve';
const SHIFT_JIS_TEXT = '東京の天気は晴れです。ｶﾀｶﾅ';
/** The text of the compressed pages (test/support/site-routes/charset.ts). */
const UTF8_SAMPLE_TEXT = 'Grüße aus Köln — 東京の天気は晴れです';

let site: FixtureSite;
let scraper: Scraper;

beforeAll(async () => {
  site = await startFixtureSite();
  scraper = createCrawleeScraper({ timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 });
});

afterAll(async () => {
  await scraper?.close();
  await site?.close();
});

const html = async (path: string): Promise<string> => (await scraper.fetch({ url: `${site.origin}${path}` })).html;

describe('scraper 2 (crawlee) charset decoding', () => {
  it('decodes windows-1252 and Shift_JIS by the header charset', async () => {
    expect(await html('/charset/windows-1252.html')).toContain(WINDOWS_1252_TEXT);
    expect(await html('/charset/shift_jis.html')).toContain(SHIFT_JIS_TEXT);
  });

  it('finds the charset in <meta charset> and <meta http-equiv> when the header has none', async () => {
    expect(await html('/charset/meta-charset.html')).toContain(SHIFT_JIS_TEXT);
    expect(await html('/charset/meta-http-equiv.html')).toContain(WINDOWS_1252_TEXT);
  });

  it('lets a byte order mark win over the header', async () => {
    const page = await html('/charset/bom-utf16le.html');
    expect(page).toContain('Grüße aus Köln — 東京');
    expect(page.charCodeAt(0)).not.toBe(0xfeff);
  });

  it.each(['gzip', 'br', 'deflate'])('decompresses %s bodies', async (encoding) => {
    expect(await html(`/charset/${encoding}.html`)).toContain(UTF8_SAMPLE_TEXT);
  });

  it('accepts an untyped body that sniffs as HTML and refuses one that does not', async () => {
    expect(await html('/charset/no-content-type.html')).toContain('<h1>Windows-1252 page</h1>');
    await expect(scraper.fetch({ url: `${site.origin}/charset/no-content-type.txt` })).rejects.toMatchObject({ code: 'FETCH_NOT_HTML' });
  });
});
