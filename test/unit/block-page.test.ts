import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertNotBlocked, classifyPage, hasMarkerWord } from '../../src/core/fetch/net/block-page.js';
import { createOriginBackoff, parseRetryAfter } from '../../src/core/fetch/net/origin-backoff.js';
import { createSourceScreen } from '../../src/core/fetch/net/source-screen.js';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { ARTICLE_PAGE, CAPTCHA_PAGES, CHALLENGE_PAGE, CONTACT_PAGE, DATA_PAGE, DENIED_PAGE } from '../support/site-routes/blocks.js';

const page = (html: string, headers: Record<string, string> = {}) => ({ headers, html });
const asBytes = (html: string) => ({ headers: {}, html: '', body: { bytes: new TextEncoder().encode(html), contentType: 'text/html' } });

describe('block pages (docs/block-pages.md)', () => {
  it('knows a challenge by its header, its title and its script, from text or from bytes', () => {
    expect(classifyPage(page('<p>anything</p>', { 'cf-mitigated': 'challenge' }))).toEqual({
      kind: 'challenge',
      reason: 'a Cloudflare challenge (cf-mitigated: challenge)',
    });
    expect(classifyPage(page(CHALLENGE_PAGE))?.kind).toBe('challenge');
    expect(classifyPage(asBytes(CHALLENGE_PAGE))?.kind).toBe('challenge');
    expect(
      classifyPage(page('<html><head><title>Just a moment…</title></head><body>Checking your browser.</body></html>'))?.reason,
    ).toContain('just a moment');
  });

  it('knows captcha pages of reCAPTCHA, hCaptcha and Turnstile with little else', () => {
    for (const [name, html] of Object.entries(CAPTCHA_PAGES)) expect(classifyPage(page(html)), name).toMatchObject({ kind: 'captcha' });
    expect(classifyPage(page(CAPTCHA_PAGES.hcaptcha!))?.reason).toBe('a captcha page (hCaptcha)');
  });

  it('knows an access-denied page answered with 200', () => {
    expect(classifyPage(page(DENIED_PAGE))).toEqual({
      kind: 'access-denied',
      reason: 'an "access denied" page answered with a success status',
    });
  });

  it('takes pages with data for pages, even with a captcha in a form or a challenge quoted in an article', () => {
    for (const html of [DATA_PAGE, CONTACT_PAGE, ARTICLE_PAGE]) expect(classifyPage(page(html))).toBeUndefined();
    expect(classifyPage(asBytes(CONTACT_PAGE))).toBeUndefined();
  });

  it('reads no further than its sample: a large page with block words is classified by its headers only', () => {
    const large = `${CHALLENGE_PAGE}${'<p>more</p>'.repeat(40_000)}`;
    expect(classifyPage(asBytes(large))).toBeUndefined();
    expect(classifyPage({ ...asBytes(large), headers: { 'cf-mitigated': 'challenge' } })?.kind).toBe('challenge');
    // Hostile markup (unclosed scripts, tags in the title) still reads in one pass.
    expect(classifyPage(page(`<title>Access denied<script>${'<script>'.repeat(5_000)}`))?.kind).toBe('access-denied');
  });

  it('cannot be forced onto a good page: block words in its content, with its text past the first 64 KiB (issue 45)', () => {
    // A shop page whose head is 70 KB of inline styles: its text starts past the sample. A seller's product
    // title, a review quoting a challenge script or a comment form's captcha must not make it a block page.
    const head = `<style>${'.c{color:red}'.repeat(5_400)}</style>`;
    const items = Array.from(
      { length: 40 },
      (_, i) => `<li><a href="/p/${i}">Book ${i}</a> <span>£${i}.99</span> in stock, ships in 2 days</li>`,
    );
    const body = `<ul>${items.join('')}</ul><p>${'A review of this edition, and why it is worth reading. '.repeat(40)}</p>`;
    const good = {
      'a title with a block phrase': `<html><head><title>Access Denied (DVD) | Shop</title>${head}</head><body><h1>Access Denied</h1>${body}</body></html>`,
      'a quoted challenge script': `<html><head><title>Shop</title>${head}</head><body><h1>Shop</h1><p>window._cf_chl_opt = {}</p>${body}</body></html>`,
      'a captcha in a form': `<html><head><title>Shop</title>${head}</head><body><h1>Shop</h1><div class="g-recaptcha"></div>${body}</body></html>`,
    };
    for (const [name, html] of Object.entries(good)) {
      expect(html.length, name).toBeGreaterThan(70_000);
      expect(classifyPage(page(html)), name).toBeUndefined();
      expect(classifyPage(asBytes(html)), name).toBeUndefined();
    }
    // Padding alone does not hide a block page: its visible text is still a sentence.
    const padded = `<html><head><title>Access Denied</title>${head}</head><body><h1>Access Denied</h1><p>Reference #18.2f</p></body></html>`;
    expect(classifyPage(asBytes(padded))?.kind).toBe('access-denied');
    expect(classifyPage(page(CHALLENGE_PAGE.replace('</head>', `${head}</head>`)))?.kind).toBe('challenge');
  });

  it('fails a block page with SOURCE_BLOCKED and a hint that names another scraper, a proxy and a login, on the wire too', () => {
    let caught: unknown;
    try {
      assertNotBlocked(page(CHALLENGE_PAGE), 'http://shop.example/catalogue/');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PagejsonError);
    const error = caught as PagejsonError;
    expect(error.code).toBe('SOURCE_BLOCKED');
    expect(error.hint).toMatch(/scraper 3.*proxy.*login/);
    expect(error.context.wireHint).toBe(error.hint);
  });
});

describe('the marker words a page is first searched for (one pattern instead of a search per word)', () => {
  const WORDS = ['moment', 'captcha', 'challenge', 'authori', 'verif', 'ddos', 'security check', 'cf_chl', 'gokuprops'];
  const reference = (text: string) =>
    ['moment', 'captcha', 'challenge', 'turnstile', 'denied', 'forbidden', 'blocked', 'rejected', 'authori', 'permission']
      .concat(['attention', 'verif', 'unusual', 'checking', 'incapsula', 'awswaf', 'gokuprops', 'cf_chl', 'ddos', 'security check'])
      .some((word) => text.toLowerCase().includes(word));
  // Pieces of marker words in random case among random latin1 characters: found exactly when a whole word is.
  const piece = fc.oneof(
    fc
      .constantFrom(...WORDS)
      .chain((word) =>
        fc
          .tuple(fc.integer({ min: 1, max: word.length }), fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }))
          .map(([length, upper]) => [...word.slice(0, length)].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
      ),
    fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)), maxLength: 6 }),
  );

  it('answers as a search of the lower-cased sample would, for bytes read as latin1', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = Buffer.from(pieces.join(''), 'latin1').toString('latin1');
        expect(hasMarkerWord(text, true)).toBe(reference(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('lower-cases text from a browser first: U+0130 and U+212A lower-case into ASCII', () => {
    expect(hasMarkerWord('You are not AUTHOR\u0130ZED', false)).toBe(true);
    expect(hasMarkerWord('Bloc\u212Aed by policy', false)).toBe(true);
    expect(hasMarkerWord('<p>Fifty books, nothing else</p>', false)).toBe(false);
  });
});

describe('a source that answered 429 (docs/block-pages.md)', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('leaves the origin alone until its Retry-After has passed, on an injected clock', () => {
    let now = 1_000_000;
    const backoff = createOriginBackoff(() => now);
    const error = backoff.limited('http://a.example', 'http://a.example/x', '90');
    expect(error.code).toBe('SOURCE_RATE_LIMITED');
    expect(error.context.retryAfterSeconds).toBe(90);
    now += 30_000;
    expect(() => backoff.check('http://a.example', 'http://a.example/y')).toThrow(
      expect.objectContaining({ code: 'SOURCE_RATE_LIMITED', context: expect.objectContaining({ retryAfterSeconds: 60 }) }),
    );
    // Other origins are not held back.
    expect(() => backoff.check('http://b.example', 'http://b.example/')).not.toThrow();
    now += 60_000;
    expect(() => backoff.check('http://a.example', 'http://a.example/y')).not.toThrow();
  });

  it('without Retry-After backs off 30 s, doubling with each 429 in a row, at most 15 minutes, and a far Retry-After is capped at an hour', () => {
    let now = 0;
    const backoff = createOriginBackoff(() => now);
    const waits: number[] = [];
    for (let strike = 0; strike < 7; strike += 1) {
      waits.push(backoff.limited('http://a.example', 'http://a.example/', undefined).context.retryAfterSeconds as number);
      now += 10 * 60 * 60_000;
    }
    expect(waits).toEqual([30, 60, 120, 240, 480, 900, 900]);
    expect(backoff.limited('http://c.example', 'http://c.example/', String(7 * 24 * 3600)).context.retryAfterSeconds).toBe(3600);
  });

  it('a fetch that answers during the pause does not end it; one after it starts the backoff again', () => {
    let now = 0;
    const backoff = createOriginBackoff(() => now);
    backoff.limited('http://a.example', 'http://a.example/', undefined);
    backoff.answered('http://a.example');
    expect(backoff.secondsLeft('http://a.example')).toBe(30);
    now += 31_000;
    backoff.answered('http://a.example');
    expect(backoff.limited('http://a.example', 'http://a.example/', undefined).context.retryAfterSeconds).toBe(30);
  });

  it('turns a status error into SOURCE_RATE_LIMITED or SOURCE_BLOCKED and leaves others as they are', () => {
    const screen = createSourceScreen(() => 0);
    const limited = screen.failed(
      new PagejsonError('FETCH_STATUS', 'HTTP 429', { context: { status: 429, retryAfter: '5' } }),
      'http://a.example',
      'http://a.example/',
    );
    expect(limited).toMatchObject({ code: 'SOURCE_RATE_LIMITED', context: { retryAfterSeconds: 5 } });
    const challenged = screen.failed(
      new PagejsonError('FETCH_STATUS', 'HTTP 403', { context: { status: 403, cfMitigated: 'challenge' } }),
      'http://b.example',
      'http://b.example/',
    );
    expect(challenged).toMatchObject({ code: 'SOURCE_BLOCKED' });
    const plain = new PagejsonError('FETCH_STATUS', 'HTTP 404', { context: { status: 404 } });
    expect(screen.failed(plain, 'http://b.example', 'http://b.example/')).toBe(plain);
  });
});
