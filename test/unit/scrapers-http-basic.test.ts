import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { UTF8_SAMPLE_TEXT } from '../support/site-routes/charset.js';

const options = { timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 };

async function fetchError(scraper: Scraper, url: string): Promise<PagejsonError> {
  const error: unknown = await scraper.fetch({ url }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PagejsonError);
  return error as PagejsonError;
}

describe('http scraper', () => {
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

  it('fetches a page with its status, headers and decoded HTML', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/listing.html` });
    expect(result.status).toBe(200);
    expect(result.finalUrl).toBe(`${site.origin}/listing.html`);
    expect(result.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(result.html).toContain('<html');
    expect(scraper.name).toBe('http');
  });

  it('sends browser-like headers', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/session/echo.html` });
    const sent = JSON.parse(decodeEntities(/<pre id="headers">(.*)<\/pre>/s.exec(result.html)?.[1] ?? '{}')) as Record<string, string>;
    expect(sent['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\//);
    expect(sent.accept).toContain('text/html');
    expect(sent['accept-language']).toMatch(/^en/);
    expect(sent['accept-encoding']).toBe('gzip, deflate, br');
    // No session asked for: no cookie and no referer.
    expect(sent.cookie).toBeUndefined();
    expect(sent.referer).toBeUndefined();
  });

  it.each(['gzip', 'br', 'deflate'])('decompresses %s bodies', async (encoding) => {
    const result = await scraper.fetch({ url: `${site.origin}/charset/${encoding}.html` });
    expect(result.html).toContain(UTF8_SAMPLE_TEXT);
  });

  it('caps decompressed bytes, so a small gzip bomb cannot inflate past maxBytes', async () => {
    const error = await fetchError(scraper, `${site.origin}/faults/gzip-bomb`);
    expect(error.code).toBe('FETCH_TOO_LARGE');
    expect(error.message).toBe('response is larger than 1048576 bytes');
  });

  it('follows redirects by hand and reports the final URL', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/faults/redirect-twice` });
    expect(result.finalUrl).toBe(`${site.origin}/listing.html`);
    expect(result.status).toBe(200);
    expect(site.hitCount('/faults/redirect-once')).toBeGreaterThan(0);
  });

  it('turns HTTP errors into FETCH_STATUS with the status in the message', async () => {
    const error = await fetchError(scraper, `${site.origin}/error-500.html`);
    expect(error.code).toBe('FETCH_STATUS');
    expect(error.message).toBe('HTTP 500');
    expect(error.context.status).toBe(500);
  });

  it('refuses content that is not HTML', async () => {
    const json = await fetchError(scraper, `${site.origin}/echo-headers`);
    expect(json.code).toBe('FETCH_NOT_HTML');
    expect(json.message).toBe('content type application/json is not HTML');
    const untyped = await fetchError(scraper, `${site.origin}/charset/no-content-type.txt`);
    expect(untyped.code).toBe('FETCH_NOT_HTML');
  });

  it('accepts a page without Content-Type when it sniffs as HTML', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/charset/no-content-type.html` });
    expect(result.html).toContain('<h1>Windows-1252 page</h1>');
  });

  it('honours the caller signal', async () => {
    const controller = new AbortController();
    // Aborted while the request waits at the source (the site has seen it).
    const hung = site.whenHits('/faults/hang', site.hitCount('/faults/hang') + 1);
    const pending = scraper.fetch({ url: `${site.origin}/faults/hang`, signal: controller.signal });
    await hung;
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e as PagejsonError,
    );
    expect(error?.code).toBe('FETCH_FAILED');
    expect(error?.message).toBe('aborted');
  });

  it('reports an unreachable source as FETCH_FAILED', async () => {
    const closedSite = await startFixtureSite();
    const url = `${closedSite.origin}/`;
    await closedSite.close();
    const error = await fetchError(scraper, url);
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toBe('connection refused');
  });

  it('refuses fetches after close', async () => {
    const own = createHttpScraper(options);
    await own.close();
    await own.close();
    const error = await fetchError(own, `${site.origin}/listing.html`);
    expect(error.message).toBe('scraper is closed');
  });
});

function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
