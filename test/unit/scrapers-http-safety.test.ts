import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { rejection } from '../support/rejection.js';

/** The only tests that run with the guard fully on: the fixture site (loopback) must be unreachable. */
const guarded = { timeoutMs: 3_000, maxBytes: 1024 * 1024, allowPrivateNetworks: false, perOriginConcurrency: 4 };

describe('http scraper address guard', () => {
  let site: FixtureSite;
  let scraper: Scraper;

  beforeAll(async () => {
    site = await startFixtureSite();
    scraper = createHttpScraper(guarded);
  });
  afterAll(async () => {
    await scraper.close();
    await site.close();
  });

  const targets = (port: number) =>
    [
      [`http://127.0.0.1:${port}/listing.html`, '127.0.0.1'],
      [`http://localhost:${port}/listing.html`, undefined],
      [`http://[::ffff:127.0.0.1]:${port}/listing.html`, '127.0.0.1'],
      [`http://2130706433:${port}/listing.html`, '127.0.0.1'],
    ] as const;

  it('refuses loopback however it is spelled, and the source never sees a request', async () => {
    for (const [url, address] of targets(site.port)) {
      const error = await scraper.fetch({ url }).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(PagejsonError);
      expect((error as PagejsonError).code, url).toBe('FETCH_BLOCKED_ADDRESS');
      if (address) expect((error as PagejsonError).message).toBe(`address ${address} is not public`);
      else expect((error as PagejsonError).message).toMatch(/^address (127\.0\.0\.1|::1) is not public$/);
    }
    expect(site.hitCount('/listing.html')).toBe(0);
  });

  it('refuses the metadata service without connecting', async () => {
    const error = await rejection(scraper.fetch({ url: 'http://169.254.169.254/latest/meta-data/' }));
    expect(error).toBeInstanceOf(PagejsonError);
    expect((error as PagejsonError).message).toBe('address 169.254.169.254 is not public');
  });

  it('refuses a use-session fetch at the origin handshake already', async () => {
    const error = await scraper
      .fetch({ url: `http://127.0.0.1:${site.port}/session/protected.html`, session: true })
      .catch((e: unknown) => e);
    expect((error as PagejsonError).code).toBe('FETCH_BLOCKED_ADDRESS');
    expect(site.hitCount('/')).toBe(0);
  });

  it('refuses schemes other than http and https', async () => {
    const error = await rejection(scraper.fetch({ url: 'file:///etc/passwd' }));
    expect((error as PagejsonError).code).toBe('FETCH_FAILED');
    expect((error as PagejsonError).message).toBe('unsupported URL scheme file:');
  });
});
