import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { SESSION_COOKIE } from '../support/site-routes/session.js';
import { rejection } from '../support/rejection.js';

const options = { timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 };

function sentHeaders(html: string): Record<string, string> {
  const json = /<pre id="headers">(.*)<\/pre>/s.exec(html)?.[1] ?? '{}';
  return JSON.parse(json.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as Record<string, string>;
}

describe('http scraper: use session (docs/wire.md, use session)', () => {
  let site: FixtureSite;
  let scraper: Scraper;

  beforeEach(async () => {
    site = await startFixtureSite();
    scraper = createHttpScraper(options);
  });
  afterEach(async () => {
    await scraper.close();
    await site.close();
  });

  it('without a session the protected page is refused with 403', async () => {
    const error = await rejection(scraper.fetch({ url: `${site.origin}/session/protected.html` }));
    expect(error).toBeInstanceOf(PagejsonError);
    expect(error.code).toBe('FETCH_STATUS');
    expect(error.message).toBe('HTTP 403');
    expect(site.hitCount('/')).toBe(0);
  });

  it('visits the origin first, then fetches the target with its cookie and a Referer', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/session/protected.html`, session: true });
    expect(result.status).toBe(200);
    expect(result.html).toContain('A-1002');
    expect(site.hitCount('/')).toBe(1);

    const echo = sentHeaders((await scraper.fetch({ url: `${site.origin}/session/echo.html`, session: true })).html);
    expect(echo.cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[0-9a-f]+$`));
    expect(echo.referer).toBe(`${site.origin}/`);
  });

  it('reuses the session of an origin instead of a new handshake per request', async () => {
    await Promise.all([1, 2, 3].map(() => scraper.fetch({ url: `${site.origin}/session/protected.html`, session: true })));
    await scraper.fetch({ url: `${site.origin}/session/protected.html`, session: true });
    expect(site.hitCount('/session/protected.html')).toBe(4);
    expect(site.hitCount('/')).toBe(1);
  });

  it('renews a session the server no longer accepts, once, and retries', async () => {
    await scraper.fetch({ url: `${site.origin}/session/protected.html`, session: true });
    await fetch(`${site.origin}/session/expire`);
    const result = await scraper.fetch({ url: `${site.origin}/session/protected.html`, session: true });
    expect(result.html).toContain('Members area');
    expect(site.hitCount('/')).toBe(2);
    // Refused once with the old cookie, served with the new one.
    expect(site.hitCount('/session/protected.html')).toBe(3);
  });

  it('renews at most once, and never a session it has just made', async () => {
    const forbidden = `${site.origin}/session/forbidden.html`;
    const fresh = await rejection(scraper.fetch({ url: forbidden, session: true }));
    expect(fresh.message).toBe('HTTP 403');
    expect(site.hitCount('/session/forbidden.html')).toBe(1);
    expect(site.hitCount('/')).toBe(1);

    const cached = await rejection(scraper.fetch({ url: forbidden, session: true }));
    expect(cached.message).toBe('HTTP 403');
    expect(site.hitCount('/session/forbidden.html')).toBe(3);
    expect(site.hitCount('/')).toBe(2);
  });

  it('does not renew on other errors', async () => {
    await scraper.fetch({ url: `${site.origin}/session/protected.html`, session: true });
    const error = await rejection(scraper.fetch({ url: `${site.origin}/faults/404`, session: true }));
    expect(error.message).toBe('HTTP 404');
    expect(site.hitCount('/faults/404')).toBe(1);
    expect(site.hitCount('/')).toBe(1);
  });
});
