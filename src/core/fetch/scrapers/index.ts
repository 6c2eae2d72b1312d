import { isPagejsonError, PagejsonError } from '../../shared/index.js';
import { startDeadline } from '../net/deadline.js';
import { createOriginQueue, type OriginQueue } from '../net/origin-queue.js';
import { createSourceScreen, type SourceScreen } from '../net/source-screen.js';
import { createPoolLogins, type PoolLoginOptions } from '../login/pool-logins.js';
import { createHttpScraper } from './http.js';
import { createProxyChooser, type ProxyChooser } from '../net/proxy-rotation.js';
import { assertSecretsAllowed, secretUses, type BrowserSettings, type ProxySettings } from '../../config/index.js';
import { assertConfigProxiesAllowed } from '../net/config-proxy-guard.js';
import type { BrowserProbe } from './browser.js';
import { remoteBrowserOf } from './browser-connect.js';
import {
  SCRAPER_CAPABILITIES,
  scraperByNumber,
  type FetchRequest,
  type FetchResult,
  type Scraper,
  type ScraperFactory,
  type ScraperName,
  type ScraperOptions,
} from './types.js';

export { createHttpScraper } from './http.js';
export type { FetchRequest, FetchResult, Scraper, ScraperFactory, ScraperName, ScraperOptions } from './types.js';
export type { BrowserProbe } from './browser.js';
export type { PageRounds, PageSteps, RoundsOutcome, RoundsStop } from './page-steps.js';
export { SCRAPER_CAPABILITIES, scraperByNumber } from './types.js';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Every scraper, by name. A mapped type over `ScraperName`, so adding a name without wiring its factory
 * fails to compile. Scraper 1 is always loaded; 2 and 3 pull in got-scraping (~0.5 s to import) and
 * Playwright (~1.4 s), so they load only when first used.
 */
const scraperFactories: { [K in ScraperName]: () => Promise<ScraperFactory> } = {
  http: () => Promise.resolve(createHttpScraper),
  crawlee: async () => (await import('./crawlee.js')).createCrawleeScraper,
  browser: async () => (await import('./browser.js')).createBrowserScraper,
};

export interface ScraperPool {
  /** Scraper by its SPEC number, created on first use and shared; every fetch waits its turn per origin. */
  get(number: 1 | 2 | 3): Scraper;
  /** The proxy choice every scraper of the pool shares (a login keeps to `proxies.proxyFor(endpoint, …)`). */
  readonly proxies: ProxyChooser;
  /** Which browser scraper 3 uses and whether it answers (`status`, `/readyz`), within `signal`. */
  probeBrowser(signal: AbortSignal): Promise<BrowserProbe>;
  /** Close every scraper created so far (sockets, crawlers, browsers). Idempotent. */
  close(): Promise<void>;
}

export interface ScraperPoolOptions extends ScraperOptions {
  /** Shared queue; by default one is made with `perOriginConcurrency`. */
  queue?: OriginQueue;
  /** Block pages and 429 pauses (net/source-screen.ts); by default one is made on the wall clock. */
  screen?: SourceScreen;
  /** Endpoints' logins (fetch/login/): where sessions are kept, how `loggedIn` is checked; default in memory. */
  logins?: PoolLoginOptions;
}

export function createScraperPool(options: ScraperPoolOptions): ScraperPool {
  const queue = options.queue ?? createOriginQueue(options.perOriginConcurrency);
  const proxies = options.proxies ?? createProxyChooser({ env: options.env ?? {} });
  const scraperOptions: ScraperOptions = { ...options, proxies };
  const screen = options.screen ?? createSourceScreen();
  const logins = createPoolLogins(options, options.logins, { browser: () => instance('browser'), proxies });
  const created = new Map<ScraperName, Promise<Scraper>>();
  const facades = new Map<ScraperName, Scraper>();
  let closed = false;

  function instance(name: ScraperName): Promise<Scraper> {
    let pending = created.get(name);
    if (!pending) {
      pending = scraperFactories[name]().then((factory) => factory(scraperOptions));
      // A failed load (e.g. Crawlee missing) is not cached, so a later call can succeed.
      pending.catch(() => created.delete(name));
      created.set(name, pending);
    }
    return pending;
  }

  /**
   * The operator's rules a config cannot lift, checked before the first byte of a fetch or its login goes out
   * (issue 45): every `${NAME}` it names is allowed (PAGEJSON_SECRETS), and its proxy is not at a private address.
   */
  async function beforeAnythingIsSent(request: FetchRequest, name: ScraperName): Promise<void> {
    const env = options.env ?? {};
    try {
      const proxy = request.access?.proxy;
      assertSecretsAllowed(secretUses({ request: request.access?.request, proxy, login: request.login?.settings }), env);
      await assertConfigProxiesAllowed(proxy, env, options.allowPrivateNetworks);
    } catch (error) {
      throw withFetchContext(error, request.url, name);
    }
  }

  function facade(name: ScraperName): Scraper {
    const scraper: Scraper = {
      name,
      async fetch(request: FetchRequest): Promise<FetchResult> {
        if (closed) throw new PagejsonError('FETCH_FAILED', 'scraper pool is closed');
        if (!request.loginSession) await beforeAnythingIsSent(request, name);
        const origin = originOf(request.url);
        screen.before(origin, request.url);
        // A fetch of an endpoint with a login goes with its session (fetch/login/login-manager.ts); a 429 of the
        // login page pauses the origin like any other.
        if (request.login && !request.loginSession) {
          return logins
            .fetch({ ...request, login: request.login }, (inner) => scraper.fetch(inner))
            .catch((error: unknown) => {
              throw screen.failed(
                error,
                originOf(isPagejsonError(error) && typeof error.context.url === 'string' ? error.context.url : request.url),
                request.url,
              );
            });
        }
        // One deadline for waiting in the origin queue and fetching: a burst at a slow site must not keep a
        // request waiting past fetch.timeoutMs before its fetch has even started.
        const { deadline, signal, dispose } = startDeadline(options.timeoutMs, request.signal);
        try {
          return await queue.run(
            origin,
            async () => {
              // Checked again after the wait: a pool closed meanwhile must not start a new scraper.
              if (closed) throw new PagejsonError('FETCH_FAILED', 'scraper pool is closed');
              screen.before(origin, request.url);
              return screen.after(await (await instance(name)).fetch({ ...request, signal }), origin, request.url);
            },
            signal,
          );
        } catch (caught) {
          const error = screen.failed(caught, origin, request.url);
          if (!deadline.aborted || request.signal?.aborted || (isPagejsonError(error) && error.code === 'FETCH_TIMEOUT'))
            throw withFetchContext(error, request.url, name);
          throw withFetchContext(
            new PagejsonError('FETCH_TIMEOUT', `timed out after ${options.timeoutMs} ms`, {
              context: { timeoutMs: options.timeoutMs, url: request.url },
              hint: 'the source is slow or many requests wait for it (fetch.perOriginConcurrency); raise fetch.timeoutMs in pagejson.json if it is just slow, or try another scraper',
              cause: error,
            }),
            request.url,
            name,
          );
        } finally {
          dispose();
        }
      },
      async close() {
        const pending = created.get(name);
        created.delete(name);
        if (pending) await (await pending.catch(() => undefined))?.close();
      },
    };
    return scraper;
  }

  return {
    proxies,
    async probeBrowser(signal) {
      const scraper = (await instance('browser')) as Scraper & { probe(signal: AbortSignal): Promise<BrowserProbe> };
      return scraper.probe(signal);
    },
    get(number) {
      const { name } = scraperByNumber(number);
      let scraper = facades.get(name);
      if (!scraper) {
        scraper = facade(name);
        facades.set(name, scraper);
      }
      return scraper;
    },
    async close() {
      if (closed) return;
      closed = true;
      const pending = [...created.values()];
      created.clear();
      await Promise.all(pending.map(async (p) => (await p.catch(() => undefined))?.close()));
      await logins.close();
    },
  };
}

const NOT_FOUND_HINT =
  "check the config's url (and the values of its URL variables): the site has no page at that address, it may have moved";

/** The status of a source's "not found" (404, or 410 gone), else undefined. */
function notFoundStatus(error: PagejsonError): number | undefined {
  const status = Number(error.context.status);
  return error.code === 'FETCH_STATUS' && (status === 404 || status === 410) ? status : undefined;
}

/** What to try next, by what went wrong: the CLI prints it under the error (the wire shows only the reason). */
function fetchHint(error: PagejsonError): string | undefined {
  if (error.hint) return error.hint;
  switch (error.code) {
    case 'FETCH_STATUS':
      return 'the site may refuse plain requests: try scraper 2 (browser fingerprints) or 3 (headless Chromium), or session (scraper 1 visits the home page first for cookies)';
    case 'FETCH_FAILED':
      return 'check the address and that this machine reaches the site; a site that drops unknown clients may answer scraper 2 or 3';
    case 'FETCH_NOT_HTML':
      return 'point at the page that shows the data (not a file or an API), or try scraper 3 if the page is built by JavaScript';
    case 'FETCH_TOO_LARGE':
      return 'raise fetch.maxBytes in pagejson.json if the page is really that large';
    case 'BROWSER_UNAVAILABLE':
      return 'install Chromium (apt-get install chromium) or set PAGEJSON_CHROMIUM, or use scraper 1 or 2';
    default:
      return undefined;
  }
}

/**
 * A fetch failure that names the URL and the scraper in its context (`fetchUrl`, `scraper` as `2 (crawlee)`), so the CLI can say
 * "could not fetch <url> with scraper 2 (crawlee): <reason>" and what to try. The message, which the daemon
 * sends on the wire after its fixed prefix, stays the bare reason.
 */
function withFetchContext(error: unknown, url: string, scraper: ScraperName): unknown {
  if (
    !isPagejsonError(error) ||
    !(error.code.startsWith('FETCH_') || error.code === 'BROWSER_UNAVAILABLE') ||
    error.context.fetchUrl !== undefined
  )
    return error;
  const missing = notFoundStatus(error);
  const hint = missing === undefined ? fetchHint(error) : NOT_FOUND_HINT;
  const label = `${SCRAPER_CAPABILITIES[scraper].number} (${scraper})`;
  // A page that is not there is not a block: said as such, without the other scrapers' workarounds (issue 45).
  const message = missing === undefined ? error.message : `the source page was not found (${missing})`;
  return new PagejsonError(error.code, message, {
    context: { ...error.context, fetchUrl: url, scraper: label },
    ...(hint ? { hint } : {}),
    cause: error.cause ?? error,
  });
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new PagejsonError('FETCH_FAILED', `invalid URL ${url}`, { context: { url } });
  }
}

export interface FetchSettings {
  timeoutMs: number;
  maxBytes: number;
  perOriginConcurrency: number;
  allowPrivateNetworks: boolean;
  /** fetch.proxy of pagejson.json (docs/access.md). */
  proxy?: ProxySettings | undefined;
  actionsTimeoutMs?: number;
}

/**
 * `pagejson.json`'s `fetch` and `browser` blocks plus the environment (PAGEJSON_CHROMIUM, PAGEJSON_BROWSER_URL)
 * → options of every scraper.
 */
export function scraperOptionsFromSettings(
  fetchSettings: FetchSettings,
  env: Record<string, string | undefined>,
  browserSettings?: BrowserSettings,
): ScraperOptions {
  const chromium = env.PAGEJSON_CHROMIUM?.trim();
  const remote = remoteBrowserOf(browserSettings, env);
  return {
    browser: { maxSessions: browserSettings?.maxSessions ?? 3, ...(remote ? { remote } : {}) },
    timeoutMs: fetchSettings.timeoutMs,
    maxBytes: fetchSettings.maxBytes,
    perOriginConcurrency: fetchSettings.perOriginConcurrency,
    allowPrivateNetworks: fetchSettings.allowPrivateNetworks,
    chromiumPath: chromium ? chromium : DEFAULT_CHROMIUM_PATH,
    env,
    proxies: createProxyChooser({ project: fetchSettings.proxy, env }),
    ...(fetchSettings.actionsTimeoutMs !== undefined ? { actionsTimeoutMs: fetchSettings.actionsTimeoutMs } : {}),
  };
}
