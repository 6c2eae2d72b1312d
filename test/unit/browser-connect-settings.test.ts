import { describe, expect, it } from 'vitest';
import { BrowserSchema } from '../../src/core/config/browser.js';
import { remoteBrowserOf, remoteLabel } from '../../src/core/fetch/scrapers/browser-connect.js';
import { scraperOptionsFromSettings } from '../../src/core/fetch/scrapers/index.js';

/**
 * Issue 51, part 1: one setting. `browser.connect` (or PAGEJSON_BROWSER_URL, which wins), its kind guessed
 * from the URL when absent, `browser.maxSessions`; without either, scraper 3 launches Chromium here.
 */
const FETCH = { timeoutMs: 10_000, maxBytes: 1024, perOriginConcurrency: 2, allowPrivateNetworks: false };

describe('browser.connect and PAGEJSON_BROWSER_URL', () => {
  it('launches locally without either, 3 pages at once unless maxSessions says otherwise', () => {
    expect(remoteBrowserOf(undefined, {})).toBeUndefined();
    expect(scraperOptionsFromSettings(FETCH, {}).browser).toEqual({ maxSessions: 3 });
    expect(scraperOptionsFromSettings(FETCH, {}, { maxSessions: 5 }).browser).toEqual({ maxSessions: 5 });
  });

  it.each([
    ['ws://browsers.internal:3000/playwright', 'playwright'],
    ['wss://fleet.example/chromium/playwright?token=x', 'playwright'],
    ['http://127.0.0.1:9222', 'cdp'],
    ['https://fleet.example', 'cdp'],
    ['ws://127.0.0.1:9222/devtools/browser/3f1c0de2-1111-2222-3333-444455556666', 'cdp'],
  ])('guesses the kind of %s as %s', (url, kind) => {
    expect(remoteBrowserOf({ connect: url }, {})).toEqual({ url, kind, headers: {} });
  });

  it('takes browser.kind as written over the guess', () => {
    expect(remoteBrowserOf({ connect: 'ws://fleet.example:3000/', kind: 'cdp' }, {})?.kind).toBe('cdp');
  });

  it('lets PAGEJSON_BROWSER_URL win over browser.connect, keeping the headers and maxSessions of the file', () => {
    const settings = { connect: 'ws://from-file:3000/', headers: { Authorization: 'Bearer ${BROWSER_TOKEN}' }, maxSessions: 8 };
    const env = { PAGEJSON_BROWSER_URL: ' http://from-env:9222 ' };
    expect(scraperOptionsFromSettings(FETCH, env, settings).browser).toEqual({
      maxSessions: 8,
      remote: { url: 'http://from-env:9222', kind: 'cdp', headers: { Authorization: 'Bearer ${BROWSER_TOKEN}' } },
    });
    // An empty variable is no setting: the file's URL stands.
    expect(remoteBrowserOf(settings, { PAGEJSON_BROWSER_URL: '  ' })?.url).toBe('ws://from-file:3000/');
  });

  it('names the browser without user info, query or a DevTools id', () => {
    const label = remoteLabel({
      url: 'ws://user:pw@127.0.0.1:9222/devtools/browser/3f1c0de2-1111-2222-3333-444455556666?token=s3cret',
      kind: 'cdp',
      headers: {},
    });
    expect(label).toBe('CDP endpoint ws://127.0.0.1:9222/devtools/browser/…');
  });

  it('refuses a browser.connect that is not a browser URL, saying what one looks like', () => {
    const parsed = BrowserSchema.safeParse({ connect: 'ftp://fleet.example/' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/starts with ws:\/\/, wss:\/\/, http:\/\/ or https:\/\//);
    expect(BrowserSchema.safeParse({ connect: 'ws://fleet.example:3000/playwright?token=${BROWSER_TOKEN}' }).success).toBe(true);
  });
});
