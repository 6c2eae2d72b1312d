import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createCrawleeScraper } from '../../src/core/fetch/scrapers/crawlee.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/** Scraper 2 against the fixture site: fingerprinted headers, charsets, no deduplication, typed refusals. */
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

describe('scraper 2 (crawlee)', () => {
  it('gets through a header check that refuses a bare HTTP client', async () => {
    const bare = await request(`${site.origin}/fingerprint/guarded.html`);
    await bare.body.dump();
    expect(bare.statusCode).toBe(403);

    const result = await scraper.fetch({ url: `${site.origin}/fingerprint/guarded.html` });
    expect(result.status).toBe(200);
    expect(result.finalUrl).toBe(`${site.origin}/fingerprint/guarded.html`);
    expect(result.headers['content-type']).toMatch(/text\/html/);
    expect(result.html).toContain('<span class="name">Lamp</span>');
  });

  it.each([429, 403, 503])('retries after a %i and returns the page served on the retry', async (status) => {
    site.resetHits();
    const result = await scraper.fetch({ url: `${site.origin}/fingerprint/flaky.html?token=crawlee-${status}&status=${status}` });
    expect(result.status).toBe(200);
    expect(result.html).toContain('Served on a retry');
    expect(site.hitCount('/fingerprint/flaky.html')).toBe(2);
  });

  it('fetches a repeated URL every time (no deduplication by URL)', async () => {
    site.resetHits();
    const first = await scraper.fetch({ url: `${site.origin}/listing.html` });
    const second = await scraper.fetch({ url: `${site.origin}/listing.html` });
    expect(first.html).toBe(second.html);
    expect(site.hitCount('/listing.html')).toBe(2);
  });

  it('serves concurrent fetches of different pages to the right callers', async () => {
    const paths = ['/listing.html', '/product.html', '/table.html', '/index.html'];
    const results = await Promise.all(paths.map((path) => scraper.fetch({ url: `${site.origin}${path}` })));
    results.forEach((result, index) => expect(result.finalUrl).toBe(`${site.origin}${paths[index]}`));
    expect(new Set(results.map((result) => result.html)).size).toBe(paths.length);
  });

  it('decodes a windows-1252 page by its declared charset, not as UTF-8', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/latin1.windows-1252.html` });
    expect(result.html).not.toContain('\uFFFD');
    expect(result.html).toMatch(/[éèàüç€]/);
  });

  it('refuses Use session with a typed error naming scraper 1', async () => {
    await expect(scraper.fetch({ url: `${site.origin}/listing.html`, session: true })).rejects.toMatchObject({
      code: 'USAGE',
      hint: expect.stringContaining('scraper 1'),
    });
  });

  it('honours the caller abort signal', async () => {
    const controller = new AbortController();
    // Aborted while the request waits at the source (the site has seen it).
    const hung = site.whenHits('/faults/hang', site.hitCount('/faults/hang') + 1);
    const pending = scraper.fetch({ url: `${site.origin}/faults/hang`, signal: controller.signal });
    await hung;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'FETCH_FAILED', message: 'the fetch was aborted' });
  });
});

describe('scraper 2 address guard', () => {
  it('refuses loopback targets by name and by literal IP unless private networks are allowed', async () => {
    const guarded = createCrawleeScraper({ timeoutMs: 3_000, maxBytes: 1024 * 1024, allowPrivateNetworks: false, perOriginConcurrency: 4 });
    try {
      site.resetHits();
      await expect(guarded.fetch({ url: `${site.origin}/listing.html` })).rejects.toMatchObject({
        code: 'FETCH_BLOCKED_ADDRESS',
        message: 'address 127.0.0.1 is not public',
      });
      await expect(guarded.fetch({ url: `http://localhost:${site.port}/listing.html` })).rejects.toMatchObject({
        code: 'FETCH_BLOCKED_ADDRESS',
      });
      expect(site.hitCount('/listing.html')).toBe(0);
    } finally {
      await guarded.close();
    }
  });
});
