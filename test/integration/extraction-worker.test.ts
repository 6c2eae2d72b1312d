import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfig } from '../../src/core/config/schema.js';
import { createWorkerPoolExtractor } from '../../src/core/extraction/worker-pool.js';
import { retrieve } from '../../src/core/retrieve.js';
import { createHttpScraper } from '../../src/core/scrapers/http.js';
import type { FetchResult, Scraper } from '../../src/core/scrapers/types.js';
import { DEFAULT_DOCUMENT_LIMITS } from '../../src/core/structure/dom.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * The daemon's extraction path: scraper 1's bytes go to the worker thread, which decodes them by the same
 * rules as the main thread would (header charset, meta tag), and the page's text is never decoded on the
 * main thread unless someone reads it.
 */
let site: FixtureSite;
let http: Scraper;
const pools: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  site = await startFixtureSite();
  http = createHttpScraper({ timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 });
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await http?.close();
  await site?.close();
});

const config = (url: string): ApiConfig =>
  ({ apiId: 'text', revision: 1, url, scraper: 1, selector: 'body', caching: true, status: 'active', model: 'heuristic', structure: [{ name: 'text', type: 'string', selector: 'p.text' }] }) as unknown as ApiConfig;

/** Scraper 1, with every read of the decoded text on this thread counted. */
function countingScraper(reads: { count: number }): Scraper {
  return {
    name: 'http',
    fetch: async (request) => {
      const page = await http.fetch(request);
      return Object.defineProperty({ ...page, body: page.body }, 'html', {
        get() {
          reads.count += 1;
          return page.html;
        },
      }) as FetchResult;
    },
    close: async () => undefined,
  };
}

describe('extraction in the worker pool', () => {
  it('decodes windows-1252 and Shift_JIS bytes in the worker; the main thread never decodes the page', async () => {
    const extractor = createWorkerPoolExtractor({ timeoutMs: 5_000, limits: DEFAULT_DOCUMENT_LIMITS, threads: 1 });
    pools.push(extractor);
    const reads = { count: 0 };
    const deps = { scraperFor: () => countingScraper(reads), extractor };
    const latin = await retrieve(config(`${site.origin}/charset/windows-1252.html`), {}, deps);
    const japanese = await retrieve(config(`${site.origin}/charset/shift_jis.html`), {}, deps);
    const meta = await retrieve(config(`${site.origin}/charset/meta-charset.html`), {}, deps);
    expect(latin.data.text).toBe('Café crème — “quoted” costs €5 ‰ naïve');
    expect(japanese.data.text).toBe('東京の天気は晴れです。ｶﾀｶﾅ');
    expect(meta.data.text).toBe('東京の天気は晴れです。ｶﾀｶﾅ');
    expect(reads.count).toBe(0);
    // Asked for, the text is there (a snapshot keeps it).
    expect(japanese.html).toContain('東京の天気は晴れです');
    expect(reads.count).toBe(1);
  });
});
