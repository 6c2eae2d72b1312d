import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createScraperPool, DEFAULT_CHROMIUM_PATH, scraperOptionsFromSettings } from '../../src/core/fetch/scrapers/index.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { slowCountedStats } from '../support/site-routes/faults.js';
import { rejection } from '../support/rejection.js';

const options = { timeoutMs: 10_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 };

describe('scraper pool', () => {
  let site: FixtureSite;
  let other: FixtureSite;

  beforeAll(async () => {
    site = await startFixtureSite();
    other = await startFixtureSite();
  });
  afterAll(async () => {
    await site.close();
    await other.close();
  });

  it('never has more than perOriginConcurrency fetches in flight at one origin', async () => {
    const pool = createScraperPool(options);
    try {
      const scraper = pool.get(1);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => scraper.fetch({ url: `${site.origin}/faults/slow-counted?i=${i}` })),
      );
      expect(results).toHaveLength(20);
      const stats = slowCountedStats(site);
      expect(stats.served).toBe(20);
      expect(stats.max).toBeLessThanOrEqual(4);
      // The queue limits, it does not serialise: several requests did overlap.
      expect(stats.max).toBeGreaterThan(1);
    } finally {
      await pool.close();
    }
  });

  it('counts time waiting in the origin queue against the fetch deadline', async () => {
    const slow = await startFixtureSite();
    // One fetch at a time, 300 ms each, one second for everything: the tail of the burst cannot make it.
    const pool = createScraperPool({ ...options, timeoutMs: 1_000, perOriginConcurrency: 1 });
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => pool.get(1).fetch({ url: `${slow.origin}/slow.html?i=${i}` })),
      );
      const served = outcomes.filter((o) => o.status === 'fulfilled');
      const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as PagejsonError);
      expect(served.length).toBeGreaterThan(0);
      expect(failed.length).toBeGreaterThan(0);
      for (const error of failed)
        expect({ code: error.code, message: error.message }).toEqual({ code: 'FETCH_TIMEOUT', message: 'timed out after 1000 ms' });
      // Requests that ran out of time while queued never reached the source.
      expect(slow.hitCount('/slow.html')).toBeLessThan(10);
    } finally {
      await pool.close();
      await slow.close();
    }
  });

  it('lets a second origin through while the first one is saturated', async () => {
    const pool = createScraperPool({ ...options, perOriginConcurrency: 1 });
    try {
      const scraper = pool.get(1);
      const stopHang = new AbortController();
      const hang = scraper.fetch({ url: `${site.origin}/faults/hang`, signal: stopHang.signal }).catch((e: unknown) => e);
      // Same origin would wait behind the hung request; another origin does not.
      const page = await scraper.fetch({ url: `${other.origin}/listing.html` });
      expect(page.status).toBe(200);
      const queued = await scraper.fetch({ url: `${site.origin}/listing.html`, signal: AbortSignal.timeout(200) }).then(
        () => 'fetched',
        (e: unknown) => (e as PagejsonError).code,
      );
      // It never reached the server: it was still waiting behind the hung request when its signal fired.
      expect(queued).toBe('FETCH_FAILED');
      expect(site.hitCount('/listing.html')).toBe(0);
      stopHang.abort();
      expect(await hang).toBeInstanceOf(PagejsonError);
    } finally {
      await pool.close();
    }
  });

  it('says a source answering 404 was not found, with no workaround for a block (issue 45)', async () => {
    const pool = createScraperPool(options);
    try {
      const error = await rejection(pool.get(1).fetch({ url: `${site.origin}/faults/404` }));
      expect(error.code).toBe('FETCH_STATUS');
      expect(error.message).toBe('the source page was not found (404)');
      expect(error.context.status).toBe(404);
      expect(error.hint).toContain("check the config's url");
      expect(error.hint).not.toMatch(/scraper 2|scraper 3|session/);
      // Another status keeps its words and its workarounds.
      const failed = await rejection(pool.get(1).fetch({ url: `${site.origin}/faults/500` }));
      expect(failed.message).toBe('HTTP 500');
      expect(failed.hint).toContain('try scraper 2');
    } finally {
      await pool.close();
    }
  });

  it('returns one shared scraper per number and refuses fetches after close', async () => {
    const pool = createScraperPool(options);
    const first = pool.get(1);
    expect(first).toBe(pool.get(1));
    expect(first.name).toBe('http');
    expect(pool.get(2).name).toBe('crawlee');
    expect(pool.get(3).name).toBe('browser');
    await first.fetch({ url: `${site.origin}/listing.html` });
    await pool.close();
    await pool.close();
    const error = await rejection(first.fetch({ url: `${site.origin}/listing.html` }));
    expect(error).toBeInstanceOf(PagejsonError);
    expect((error as PagejsonError).message).toBe('scraper pool is closed');
  });

  it('loads scraper 2 lazily through the registry and queues it like scraper 1', async () => {
    const pool = createScraperPool(options);
    try {
      const result = await pool.get(2).fetch({ url: `${site.origin}/listing.html` });
      expect(result.status).toBe(200);
      expect(result.html).toContain('<html');
    } finally {
      await pool.close();
    }
  });

  it('derives scraper options from the fetch settings and the environment', () => {
    const settings = { timeoutMs: 1234, maxBytes: 99, perOriginConcurrency: 2, allowPrivateNetworks: true };
    const env = { HTTPS_PROXY: 'http://proxy.example:3128' };
    const options = scraperOptionsFromSettings(settings, env);
    // Without browser settings, scraper 3 launches Chromium locally with three pages at once.
    expect(options).toEqual({
      ...settings,
      browser: { maxSessions: 3 },
      chromiumPath: DEFAULT_CHROMIUM_PATH,
      env,
      proxies: expect.anything(),
    });
    // The environment the secrets and the proxy are read from is the one given, not the process's.
    expect(options.proxies?.candidates(new URL('https://shop.example/'), {}).map((proxy) => proxy.label)).toEqual([
      'http://proxy.example:3128',
    ]);
    expect(scraperOptionsFromSettings(settings, { PAGEJSON_CHROMIUM: '/opt/chrome' }).chromiumPath).toBe('/opt/chrome');
  });
});
