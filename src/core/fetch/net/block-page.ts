import { Parser } from 'htmlparser2';
import { PagejsonError } from '../../shared/index.js';
import type { FetchResult } from '../scrapers/types.js';

/**
 * Block pages (docs/block-pages.md): what an anti-bot layer answers instead of the page — a challenge
 * ("Just a moment…", a challenge script), a captcha with little else, or "access denied" answered with 200.
 * Served as data, such a page would be cached, summarised by a model or "healed" into selectors for the block
 * page itself; so every fetch is classified here and a block page is the error SOURCE_BLOCKED instead.
 *
 * The classification is cheap and bounded: the headers, then at most the first SAMPLE_BYTES of the page, read
 * only when they hold one of the marker words, with a linear tokenizer (htmlparser2), never a DOM. A page over
 * MAX_CLASSIFIED_BYTES has far more than a block page holds and is classified by its headers alone.
 */
export type BlockKind = 'challenge' | 'captcha' | 'access-denied';

export interface BlockVerdict {
  kind: BlockKind;
  /** What gave it away, in words (`a Cloudflare challenge (cf-mitigated: challenge)`). */
  reason: string;
}

const SAMPLE_BYTES = 64 * 1024;
const MAX_CLASSIFIED_BYTES = 256 * 1024;
/** "Little else": a block page's visible text is a sentence or two; a page with data has more. */
const CHALLENGE_TEXT_MAX = 2_000;
const CAPTCHA_TEXT_MAX = 1_000;
const DENIED_TEXT_MAX = 1_500;

/** A cheap first look: a page holding none of these is not read further. */
const MARKER_WORDS = [
  'moment',
  'captcha',
  'challenge',
  'turnstile',
  'denied',
  'forbidden',
  'blocked',
  'rejected',
  'authori',
  'permission',
  'attention',
  'verif',
  'unusual',
  'checking',
  'incapsula',
  'awswaf',
  'gokuprops',
  'cf_chl',
  'ddos',
  'security check',
];

/**
 * The marker words as one case-insensitive pattern: a single regex pass over the sample, where a lower-cased
 * copy searched once per word took ~2.5 ms of the main thread for every 100 KB page fetched (docs/performance.md).
 */
const MARKER_PATTERN = new RegExp(MARKER_WORDS.join('|'), 'i');

/** Scripts and markup only challenge pages carry (Cloudflare, Imperva, DataDome, PerimeterX, AWS WAF, Akamai, Kasada). */
const CHALLENGE_MARKERS: ReadonlyArray<[string, string]> = [
  ['_cf_chl_opt', 'a Cloudflare challenge script'],
  ['id="challenge-form"', 'a Cloudflare challenge form'],
  ['cf-browser-verification', 'a Cloudflare browser check'],
  ['_incapsula_resource', 'an Imperva (Incapsula) challenge'],
  ['captcha-delivery.com', 'a DataDome challenge'],
  ['px-captcha', 'a PerimeterX challenge'],
  ['_pxcaptcha', 'a PerimeterX challenge'],
  ['awswafcookiedomainlist', 'an AWS WAF challenge'],
  ['gokuprops', 'an AWS WAF challenge'],
  ['/_sec/cp_challenge', 'an Akamai challenge'],
  ['kpsdk', 'a Kasada challenge'],
];
const CHALLENGE_TITLE =
  /^(?:just a moment|attention required|please wait|checking your browser|one moment, please|ddos-guard|security check|verifying you are human|are you a robot|pardon our interruption)/;

const CAPTCHA_MARKERS: ReadonlyArray<[string, string]> = [
  ['g-recaptcha', 'reCAPTCHA'],
  ['google.com/recaptcha', 'reCAPTCHA'],
  ['recaptcha/api.js', 'reCAPTCHA'],
  ['h-captcha', 'hCaptcha'],
  ['hcaptcha.com', 'hCaptcha'],
  ['cf-turnstile', 'Cloudflare Turnstile'],
  ['challenges.cloudflare.com/turnstile', 'Cloudflare Turnstile'],
];
const DENIED_TITLE =
  /\b(?:access denied|access to this page has been denied|forbidden|you have been blocked|request blocked|request rejected|the requested url was rejected|not authori[sz]ed|permission denied|bot detected|unusual traffic)\b/;

/** The first `limit` bytes of a fetched page as text, without decoding the whole page (markers are ASCII). */
function sampleOf(page: Pick<FetchResult, 'body' | 'html'>, limit = SAMPLE_BYTES): { text: string; size: number; latin1: boolean } {
  if (page.body) {
    const { bytes } = page.body;
    return {
      text: Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, limit)).toString('latin1'),
      size: bytes.byteLength,
      latin1: true,
    };
  }
  const html = page.html;
  return { text: html.slice(0, limit), size: html.length, latin1: false };
}

interface Reading {
  title: string;
  heading: string;
  /** Visible characters (whitespace collapsed), outside script, style and template. */
  visible: number;
}

/** Title, first heading and the amount of visible text of a sample, in one pass of htmlparser2's tokenizer. */
function read(sample: string): Reading {
  const reading: Reading = { title: '', heading: '', visible: 0 };
  let hidden = 0;
  let inTitle = false;
  let inHeading = false;
  let headingDone = false;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (name === 'script' || name === 'style' || name === 'template') hidden += 1;
        else if (name === 'title') inTitle = true;
        else if (name === 'h1' && !headingDone) inHeading = true;
      },
      onclosetag(name) {
        if (name === 'script' || name === 'style' || name === 'template') hidden = Math.max(0, hidden - 1);
        else if (name === 'title') inTitle = false;
        else if (name === 'h1' && inHeading) {
          inHeading = false;
          headingDone = true;
        }
      },
      ontext(text) {
        if (inTitle) reading.title += text;
        else if (hidden === 0) {
          reading.visible += text.replace(/\s+/g, ' ').trim().length;
          if (inHeading) reading.heading += text;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(sample);
  reading.title = reading.title.replace(/\s+/g, ' ').trim().toLowerCase();
  reading.heading = reading.heading.replace(/\s+/g, ' ').trim().toLowerCase();
  return reading;
}

/**
 * Whether the sample holds one of the marker words in any case, as its lower-cased copy would. For bytes read
 * as latin1 one regex pass gives that answer (no latin1 character lower-cases into ASCII) in a tenth of the
 * time; text from a browser may hold the two characters that do (U+0130, U+212A), so it is lower-cased first.
 */
export function hasMarkerWord(sample: string, latin1: boolean): boolean {
  if (latin1) return MARKER_PATTERN.test(sample);
  const lower = sample.toLowerCase();
  return MARKER_WORDS.some((word) => lower.includes(word));
}

function firstMarker(lower: string, markers: ReadonlyArray<[string, string]>): string | undefined {
  return markers.find(([marker]) => lower.includes(marker))?.[1];
}

function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.hasOwn(headers, name) ? headers[name] : undefined;
}

/** What the headers alone say (any status): Cloudflare marks its challenges `cf-mitigated: challenge`. */
export function blockByHeaders(headers: Readonly<Record<string, string>>): BlockVerdict | undefined {
  if (headerValue(headers, 'cf-mitigated')?.toLowerCase().includes('challenge'))
    return { kind: 'challenge', reason: 'a Cloudflare challenge (cf-mitigated: challenge)' };
  return undefined;
}

/** The verdict on a page answered with a success status, or undefined when it reads as a page. */
export function classifyPage(page: Pick<FetchResult, 'headers' | 'body' | 'html'>): BlockVerdict | undefined {
  const byHeaders = blockByHeaders(page.headers);
  if (byHeaders) return byHeaders;
  const { text, size, latin1 } = sampleOf(page);
  if (size > MAX_CLASSIFIED_BYTES) return undefined;
  if (!hasMarkerWord(text, latin1)) return undefined;
  const lower = text.toLowerCase();
  const reading = read(text);
  // "Little else" is a claim about the page, not the sample: a page past the sample whose first 64 KiB are
  // mostly head (inline styles, scripts) has its text further on, where a block word in its title or a quoted
  // widget must not make it a block page (issue 45). Such a page is counted whole (it is at most 256 KiB).
  if (size > SAMPLE_BYTES && reading.visible <= CHALLENGE_TEXT_MAX)
    reading.visible = read(sampleOf(page, MAX_CLASSIFIED_BYTES).text).visible;
  const challenge =
    firstMarker(lower, CHALLENGE_MARKERS) ??
    (CHALLENGE_TITLE.test(reading.title) ? `a challenge page ("${reading.title.slice(0, 60)}")` : undefined);
  if (challenge && reading.visible <= CHALLENGE_TEXT_MAX) return { kind: 'challenge', reason: challenge };
  const captcha = firstMarker(lower, CAPTCHA_MARKERS);
  if (captcha && reading.visible <= CAPTCHA_TEXT_MAX) return { kind: 'captcha', reason: `a captcha page (${captcha})` };
  const denied = DENIED_TITLE.exec(reading.title)?.[0] ?? DENIED_TITLE.exec(reading.heading)?.[0];
  if (denied && reading.visible <= DENIED_TEXT_MAX)
    return { kind: 'access-denied', reason: `an "${denied}" page answered with a success status` };
  return undefined;
}

const HINTS: Readonly<Record<BlockKind, string>> = {
  challenge:
    'the site challenges automated clients: try scraper 3 (a real browser: `pagejson run <apiId> --scraper 3`), a proxy (proxy in the config or fetch.proxy in pagejson.json), or a login',
  captcha:
    'the site asks for a captcha, which pagejson does not solve: try scraper 3, a proxy the site trusts, or a login (signed-in visitors are often spared the captcha)',
  'access-denied':
    'the site refuses this client: try another scraper, a proxy (proxy in the config), or a login if the page is for members',
};

/** SOURCE_BLOCKED for a verdict: what it was, and what to try (the hint goes on the wire too). */
export function blockedError(verdict: BlockVerdict, url: string): PagejsonError {
  const hint = HINTS[verdict.kind];
  return new PagejsonError('SOURCE_BLOCKED', verdict.reason, { context: { url, block: verdict.kind, wireHint: hint }, hint });
}

/** The page as it is, or SOURCE_BLOCKED when it is a block page. */
export function assertNotBlocked<T extends Pick<FetchResult, 'headers' | 'body' | 'html'>>(page: T, url: string): T {
  const verdict = classifyPage(page);
  if (verdict) throw blockedError(verdict, url);
  return page;
}

/**
 * What a status error keeps of the response's headers: only those that classify it (never Set-Cookie or
 * anything a log should not hold).
 */
export function statusFacts(headers: Readonly<Record<string, string | string[] | undefined>>): {
  retryAfter?: string;
  cfMitigated?: string;
} {
  const one = (name: string): string | undefined => {
    const value = Object.hasOwn(headers, name) ? headers[name] : undefined;
    return (Array.isArray(value) ? value[0] : value)?.slice(0, 200);
  };
  const retryAfter = one('retry-after');
  const cfMitigated = one('cf-mitigated');
  return { ...(retryAfter !== undefined ? { retryAfter } : {}), ...(cfMitigated !== undefined ? { cfMitigated } : {}) };
}
