import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiConfigSchema, type ApiConfig } from '../../src/core/config/schema.js';
import { createWorkerPoolExtractor } from '../../src/core/extract/workers/worker-pool.js';
import { createModelResolver } from '../../src/core/models/index.js';
import { retrieve } from '../../src/core/retrieval/retrieve.js';
import { envelopeBody } from '../../src/core/cache/response-cache.js';
import { startFakeLlm } from '../support/fake-llm.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { FetchResult, Scraper } from '../../src/core/fetch/scrapers/types.js';
import type { WireReleaseReply } from '../../src/core/extract/workers/types.js';
import { DEFAULT_DOCUMENT_LIMITS } from '../../src/core/extract/engine/dom.js';
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
  ({
    apiId: 'text',
    revision: 1,
    url,
    scraper: 1,
    selector: 'body',
    caching: true,
    status: 'active',
    model: 'heuristic',
    structure: [{ name: 'text', type: 'string', selector: 'p.text' }],
  }) as unknown as ApiConfig;

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

describe('what crosses between the threads', () => {
  it('moves a handed-over page to the thread instead of copying it; reading its text afterwards is a clear error', async () => {
    const extractor = createWorkerPoolExtractor({ timeoutMs: 5_000, limits: DEFAULT_DOCUMENT_LIMITS, threads: 1 });
    pools.push(extractor);
    const pages: FetchResult[] = [];
    const keeping: Scraper = {
      name: 'http',
      fetch: async (request) => pages[pages.push(await http.fetch(request)) - 1]!,
      close: async () => undefined,
    };
    const deps = { scraperFor: () => keeping, extractor };
    const url = `${site.origin}/charset/windows-1252.html`;

    const handed = await retrieve(config(url), {}, deps, { handOverPage: true });
    expect(handed.data.text).toBe('Café crème — “quoted” costs €5 ‰ naïve');
    // Moved: the bytes are detached on this thread (a copy would have left them here).
    expect(pages[0]!.body!.bytes.byteLength).toBe(0);
    expect(() => handed.html).toThrow(/handed to the extraction thread/);

    // Not handed over (a snapshot reads the page): copied, and the text is still here.
    const kept = await retrieve(config(url), {}, deps);
    expect(kept.data).toEqual(handed.data);
    expect(pages[1]!.body!.bytes.byteLength).toBeGreaterThan(0);
    expect(kept.html).toContain('Café crème');
  });

  it('copies a handed-over page whose bytes are a slice of a shared buffer, leaving the buffer whole', async () => {
    const extractor = createWorkerPoolExtractor({ timeoutMs: 5_000, limits: DEFAULT_DOCUMENT_LIMITS, threads: 1 });
    pools.push(extractor);
    // A small page as Node's buffer pool hands it out: a view into an 8 KB buffer that other buffers share.
    const neighbour = Buffer.from('neighbour bytes');
    const bytes = Buffer.from('<html><body><p class="text">pooled</p></body></html>');
    expect(bytes.buffer).toBe(neighbour.buffer);
    const pooled: Scraper = {
      name: 'http',
      fetch: async () =>
        ({
          finalUrl: `${site.origin}/pooled.html`,
          status: 200,
          headers: {},
          html: bytes.toString(),
          body: { bytes, contentType: 'text/html' },
        }) as FetchResult,
      close: async () => undefined,
    };
    const result = await retrieve(
      config(`${site.origin}/pooled.html`),
      {},
      { scraperFor: () => pooled, extractor },
      { handOverPage: true },
    );
    expect(result.data.text).toBe('pooled');
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(neighbour.toString()).toBe('neighbour bytes');
  });

  it('sends the data back as JSON text the response body reuses, and a model field filled afterwards is in the body', async () => {
    const extractor = createWorkerPoolExtractor({ timeoutMs: 5_000, limits: DEFAULT_DOCUMENT_LIMITS, threads: 1 });
    pools.push(extractor);
    const llm = await startFakeLlm();
    try {
      const resolver = createModelResolver({
        models: { local: { baseURL: llm.baseURL, model: 'fake-model' } },
        env: {},
        timeoutMs: 5_000,
        maxRetries: 0,
      });
      const deps = { scraperFor: () => http, extractor, modelFor: (name: string) => resolver.get(name) };
      const structure = [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'summary', type: 'string', description: 'one sentence about the product' },
      ];
      // Without a model (heuristic) the body is the worker's text as it came, equal to stringifying the data.
      const plain = await retrieve(
        ApiConfigSchema.parse({ apiId: 'plain', url: `${site.origin}/product.html`, model: 'heuristic', structure }),
        {},
        deps,
      );
      expect(plain.data).toEqual({ title: 'Aeropress Coffee Maker', summary: null });
      expect(envelopeBody(plain.data)).toBe(`{"data":${JSON.stringify(plain.data)},"errors":null}`);
      // With a model the data changes after the worker answered: the body must say what the data says now.
      llm.script([{ json: { summary: 'A small coffee press.' } }]);
      const filled = await retrieve(
        ApiConfigSchema.parse({ apiId: 'filled', url: `${site.origin}/product.html`, model: 'local', structure }),
        {},
        deps,
      );
      expect(filled.data).toEqual({ title: 'Aeropress Coffee Maker', summary: 'A small coffee press.' });
      expect(JSON.parse(envelopeBody(filled.data))).toEqual({
        data: { title: 'Aeropress Coffee Maker', summary: 'A small coffee press.' },
        errors: null,
      });
    } finally {
      await llm.close();
    }
  });

  it('extracts with the structure a job carries, even when a config was edited without a new revision', async () => {
    const extractor = createWorkerPoolExtractor({ timeoutMs: 5_000, limits: DEFAULT_DOCUMENT_LIMITS, threads: 1 });
    pools.push(extractor);
    const deps = { scraperFor: () => http, extractor };
    const url = `${site.origin}/product.html`;
    const first = await retrieve(
      ApiConfigSchema.parse({ apiId: 'edited', revision: 3, url, structure: [{ name: 'title', type: 'string', selector: 'h1' }] }),
      {},
      deps,
    );
    expect(first.data).toEqual({ title: 'Aeropress Coffee Maker' });
    // Same apiId and revision, another field and another selector section: the worker's memo must not answer with the first.
    const edited = await retrieve(
      ApiConfigSchema.parse({ apiId: 'edited', revision: 3, url, structure: [{ name: 'heading', type: 'string', selector: 'h1' }] }),
      {},
      deps,
    );
    expect(edited.data).toEqual({ heading: 'Aeropress Coffee Maker' });
    const narrowed = await retrieve(
      ApiConfigSchema.parse({
        apiId: 'edited',
        revision: 3,
        url,
        selector: 'head',
        structure: [{ name: 'heading', type: 'string', selector: 'title' }],
      }),
      {},
      deps,
    );
    expect(narrowed.data).toEqual({ heading: 'Aeropress Coffee Maker | Fixture Kitchen' });
  });
});

describe('a busy pool', () => {
  it('runs jobs in the order they came: none is overtaken by more than the jobs already waiting', async () => {
    // ~200 KB, so that a job takes a few milliseconds and the queue stays full under eight callers.
    const page = Buffer.from(
      `<html><body>${Array.from({ length: 1_500 }, (_, i) => `<p class="text">paragraph ${i} ${'lorem ipsum '.repeat(8)}</p>`).join('')}</body></html>`,
    );
    const site: Scraper = {
      name: 'http',
      fetch: async () =>
        ({
          finalUrl: 'http://127.0.0.1/p.html',
          status: 200,
          headers: {},
          html: '',
          body: { bytes: Buffer.from(page), contentType: 'text/html' },
        }) as FetchResult,
      close: async () => undefined,
    };
    const extractor = createWorkerPoolExtractor({ timeoutMs: 60_000, limits: DEFAULT_DOCUMENT_LIMITS, threads: 1, idleReleaseMs: 0 });
    pools.push(extractor);
    const deps = { scraperFor: () => site, extractor };
    const callers = 8;
    let finished = 0;
    let worstOvertaken = 0;
    const caller = async (): Promise<void> => {
      for (let job = 0; job < 40; job += 1) {
        const finishedBefore = finished;
        const result = await retrieve(config('http://127.0.0.1/p.html'), {}, deps);
        expect(result.data.text).toMatch(/^paragraph 0 /);
        worstOvertaken = Math.max(worstOvertaken, finished - finishedBefore);
        finished += 1;
      }
    };
    await Promise.all(Array.from({ length: callers }, caller));
    expect(finished).toBe(callers * 40);
    // At most the other callers' jobs were ahead of a job; piscina's default order let one wait out dozens.
    expect(worstOvertaken).toBeLessThanOrEqual(callers);
  });
});

describe('an idle pool gives its threads memory back', () => {
  /** A listing big enough to grow a thread's heap: ~600 KB, 4,000 items. */
  const bigPage = Buffer.from(
    `<html><body><ul>${Array.from({ length: 4_000 }, (_, i) => `<li class="item"><p class="text">item ${i} ${'lorem ipsum '.repeat(8)}</p><a href="/p/${i}">more</a></li>`).join('')}</ul></body></html>`,
  );
  const bigSite: Scraper = {
    name: 'http',
    fetch: async () =>
      ({
        finalUrl: 'http://127.0.0.1/big.html',
        status: 200,
        headers: {},
        html: bigPage.toString(),
        body: { bytes: Buffer.from(bigPage), contentType: 'text/html' },
      }) as FetchResult,
    close: async () => undefined,
  };
  const listing = ApiConfigSchema.parse({
    apiId: 'big',
    url: 'http://127.0.0.1/big.html',
    structure: [{ name: 'items', type: 'array', selector: 'li.item', fields: [{ name: 'text', type: 'string', selector: 'p.text' }] }],
  });

  // The pool's idle timer runs on the fake clock; the thread, its jobs and its replies are real.
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => vi.useRealTimers());
  /** A release is a message to the thread: its reply comes when the thread has done it. */
  const releasesReach = (releases: WireReleaseReply[], count: number) =>
    vi.waitFor(() => expect(releases.length).toBeGreaterThanOrEqual(count), { timeout: 10_000, interval: 20 });

  it('releases each thread once the pool has been idle, never while jobs follow each other, and extracts as before after', async () => {
    const releases: WireReleaseReply[] = [];
    const extractor = createWorkerPoolExtractor({
      timeoutMs: 10_000,
      limits: DEFAULT_DOCUMENT_LIMITS,
      threads: 1,
      idleReleaseMs: 1_000,
      onIdleRelease: (reply) => releases.push(reply),
    });
    pools.push(extractor);
    const deps = { scraperFor: () => bigSite, extractor };
    for (let job = 0; job < 15; job += 1) {
      const result = await retrieve(listing, {}, deps);
      expect((result.data.items as unknown[]).length).toBe(4_000);
      // A quiet spell just short of the wait before the next job.
      vi.advanceTimersByTime(999);
    }
    // Jobs one after another: the pool was never idle for a second.
    expect(releases).toEqual([]);

    vi.advanceTimersByTime(1);
    await releasesReach(releases, 1);
    expect(releases).toHaveLength(1);
    const [release] = releases;
    expect(release!.released).toBe(true);
    // The thread's heap after fifteen parses of the page, against what it is once collected and shrunk.
    expect(release!.heapBytesAfter).toBeLessThan(release!.heapBytesBefore);

    // The thread works as before, and a new quiet spell releases again.
    const after = await retrieve(listing, {}, deps);
    expect((after.data.items as Array<{ text: string }>)[3_999]!.text).toBe(`item 3999 ${'lorem ipsum '.repeat(8).trim()}`);
    // Work came back at once after the release, so the next wait is twice as long (idle-release.ts).
    vi.advanceTimersByTime(2_000);
    await releasesReach(releases, 2);
    expect(releases).toHaveLength(2);
  });

  it('does not release with idleReleaseMs 0', async () => {
    const releases: WireReleaseReply[] = [];
    const extractor = createWorkerPoolExtractor({
      timeoutMs: 10_000,
      limits: DEFAULT_DOCUMENT_LIMITS,
      threads: 1,
      idleReleaseMs: 0,
      onIdleRelease: (reply) => releases.push(reply),
    });
    pools.push(extractor);
    const deps = { scraperFor: () => bigSite, extractor };
    await retrieve(listing, {}, deps);
    // Longer than any wait the release policy picks.
    vi.advanceTimersByTime(120_000);
    // Jobs and releases reach the thread in order: a release posted by now would have answered before this job.
    await retrieve(listing, {}, deps);
    expect(releases).toEqual([]);
  });
});
