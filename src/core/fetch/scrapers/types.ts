import type { PageCharset } from '../../shared/index.js';
import type { PageSteps, RoundsOutcome } from './page-steps.js';
import type { FetchLogin, LoginSession } from '../login/types.js';

import type { ProxyChooser } from '../net/proxy-rotation.js';
import type { FetchAccess } from '../net/request-access.js';

/** The fetching seam. Every scraper returns the same result or throws a PagejsonError of the FETCH_ family. */
/** The encoding a page was read in (declared or guessed): defined beside the decoding, in shared. */
export type { PageCharset };

export type ScraperName = 'http' | 'crawlee' | 'browser';

export interface FetchRequest {
  url: string;
  /** Use session (docs/wire.md, use session): only scrapers whose capability says `supportsSession`. */
  session?: boolean;
  /** Aborts the fetch early (client went away, shutdown); the scraper's own deadline applies regardless. */
  signal?: AbortSignal;
  /** The endpoint's `request` headers and cookies and its `proxy`, as written (docs/access.md): `accessOf(config)`. */
  access?: FetchAccess;
  /** Scraper 3 only: actions and load-more/scroll rounds on the loaded page (page-steps.ts, docs/actions.md). */
  steps?: PageSteps;
  /** The endpoint's `login` (docs/access.md): the pool fetches with its session, signing in when needed: `loginOf(config)`. */
  login?: FetchLogin;
  /** The session a scraper sends (its cookies; scraper 3 also its storage), set by the pool's login manager. */
  loginSession?: LoginSession;
}

export interface FetchResult {
  /** URL after redirects: relative links and `absoluteUrl` resolve against it. */
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  /** Decoded text (by BOM, header charset or meta tag; when none, detected from the bytes as browsers do). */
  readonly html: string;
  /**
   * The body as received (decompressed) with its Content-Type, when the scraper read the bytes itself (1, 2).
   * Extraction then decodes it where it parses (the worker thread), and `html` is decoded only when read.
   */
  body?: PageBody;
  /** How a fetch with rounds (request.steps.rounds) ended; the pages themselves went to its onPage. */
  rounds?: RoundsOutcome;
  /** Set when the page declared no charset and its encoding was guessed from its bytes, as browsers do. */
  charset?: PageCharset;
}

export interface PageBody {
  bytes: Uint8Array;
  contentType: string | undefined;
}

export interface Scraper {
  readonly name: ScraperName;
  fetch(request: FetchRequest): Promise<FetchResult>;
  /** Release sockets, browsers and crawlers. Idempotent. */
  close(): Promise<void>;
}

export interface ScraperOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivateNetworks: boolean;
  perOriginConcurrency: number;
  /** Scraper 3 only: path of the Chromium executable (default /usr/bin/chromium, PAGEJSON_CHROMIUM overrides). */
  chromiumPath?: string;
  /** Where `${NAME}` secrets are read (the process's environment, given by the caller). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The proxy choice shared by every scraper of a pool (fetch.proxy of pagejson.json, the environment). */
  proxies?: ProxyChooser;
  /** Scraper 3 only: time bound of a fetch's actions and rounds together (fetch.actionsTimeoutMs, default 10 s). */
  actionsTimeoutMs?: number;
  /** Scraper 3 only: `browser` of pagejson.json with PAGEJSON_BROWSER_URL (browser-connect.ts); absent: launch locally, 3 pages at once. */
  browser?: ScraperBrowser;
}

export interface ScraperBrowser {
  /** The browser elsewhere to connect to; absent: the local Chromium. */
  remote?: { url: string; kind: 'playwright' | 'cdp'; headers: Readonly<Record<string, string>> } | undefined;
  /** Pages at once on the browser (browser.maxSessions). */
  maxSessions: number;
}

export type ScraperFactory = (options: ScraperOptions) => Scraper;

/** Capabilities are data: validation (session only where supported) and credit costs are derived from them. */
export interface ScraperCapabilities {
  number: 1 | 2 | 3;
  name: ScraperName;
  rendersJs: boolean;
  supportsSession: boolean;
  description: string;
}

export const SCRAPER_CAPABILITIES: { readonly [K in ScraperName]: ScraperCapabilities } = {
  http: {
    number: 1,
    name: 'http',
    rendersJs: false,
    supportsSession: true,
    description: 'plain HTTP (undici), optional session handshake',
  },
  crawlee: { number: 2, name: 'crawlee', rendersJs: false, supportsSession: false, description: 'Crawlee HTTP with browser fingerprints' },
  browser: {
    number: 3,
    name: 'browser',
    rendersJs: true,
    supportsSession: false,
    description: 'Playwright + headless Chromium, renders JavaScript',
  },
};

// By number, built once: credits and validation look scrapers up on every request.
const BY_NUMBER = new Map(Object.values(SCRAPER_CAPABILITIES).map((c) => [c.number, c]));

export function scraperByNumber(number: 1 | 2 | 3): ScraperCapabilities {
  const found = BY_NUMBER.get(number);
  if (!found) throw new Error(`no scraper ${number}`);
  return found;
}
