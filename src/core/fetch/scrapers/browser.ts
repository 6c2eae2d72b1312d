import { access, constants } from 'node:fs/promises';
import type { Page, Request as PageRequest, Response } from 'playwright-core';
import { PagejsonError } from '../../shared/index.js';
import { assertAllowedUrlHost, blockedAddressError } from '../net/address-guard.js';
import { assertAnnouncedLength, tooLargeError } from '../net/body-limit.js';
import { assertHtmlContentType } from '../net/html-response.js';
import { watchDocuments, type DocumentWatch } from './crawlee-browser-watch.js';
import { BLOCKED_HEADER, startGuardProxy, type GuardProxy } from './crawlee-guard-proxy.js';
import { crawleeConfiguration, retryBackoffMs, sessionUnsupportedError, sourceUrl, waitForBackoff } from './crawlee-common.js';
import { isRetryableStatus, statusError, statusOfCrawleeError, toFetchError } from './crawlee-errors.js';
import { createKeepAliveCrawler, type KeepAliveCrawler, type PendingFetch } from './crawlee-keepalive.js';
import type { Scraper, ScraperOptions } from './types.js';

/**
 * Scraper 3: Crawlee's PlaywrightCrawler on the system Chromium (never a downloaded browser). It renders
 * JavaScript, waits (bounded) for the network to go idle and returns the rendered DOM. One long-lived crawler
 * and browser per scraper with a small page pool; loaded only through `await import`.
 */

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
const MAX_PAGES = 3;
const MAX_RETRIES = 1;
/** Network idle is a heuristic (analytics beacons never stop): wait for it this long at most. */
const NETWORK_IDLE_CAP_MS = 5_000;
/** Time kept back from the deadline for serialising the DOM after waiting for idle. */
const CONTENT_RESERVE_MS = 250;
const VERSION_CHECK_TIMEOUT_MS = 15_000;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

interface PageState {
  /** Hosts of the main document and its redirect hops, to attribute a refused HTTPS tunnel. */
  navigationHosts: Set<string>;
  /** The latest main-frame document response (after redirects), even when navigation then failed. */
  mainResponse?: Response;
  documents: DocumentWatch;
}

export function browserUnavailableError(path: string, cause?: unknown): PagejsonError {
  return new PagejsonError('BROWSER_UNAVAILABLE', `Chromium was not found at ${path}`, {
    context: { path },
    cause,
    hint: 'install it with `apt-get install chromium` or set PAGEJSON_CHROMIUM',
  });
}

/** The most specific reason a page failed, from what the page saw rather than from the error's wording. */
function pageFailure(state: PageState | undefined, proxy: GuardProxy, maxBytes: number): PagejsonError | undefined {
  if (!state) return undefined;
  for (const host of state.navigationHosts) {
    const refused = proxy.blockedHost(host);
    if (refused) return blockedAddressError(refused);
  }
  if (state.documents.exceeded()) return tooLargeError(maxBytes);
  const response = state.mainResponse;
  if (!response) return undefined;
  const refusedByProxy = response.headers()[BLOCKED_HEADER];
  if (refusedByProxy) return blockedAddressError(refusedByProxy);
  const status = response.status();
  if (status >= 400 && !isRetryableStatus(status)) return statusError(status);
  try {
    if (status < 400) assertHtmlContentType(response.headers()['content-type']);
  } catch (error) {
    return error as PagejsonError;
  }
  return undefined;
}

async function buildCrawler(options: ScraperOptions, chromiumPath: string): Promise<KeepAliveCrawler> {
  const [crawlee, playwright] = await Promise.all([import('@crawlee/playwright'), import('playwright-core')]);
  const config = crawleeConfiguration(crawlee);
  const proxy = await startGuardProxy(options.allowPrivateNetworks);
  const pages = new WeakMap<Page, PageState>();
  // eslint-disable-next-line prefer-const -- the hooks below close over it before the crawler exists
  let keepAlive: KeepAliveCrawler;
  const timeoutSecs = Math.ceil(options.timeoutMs / 1000) + 1;

  const fail = (entry: PendingFetch | undefined, request: { noRetry: boolean }, error: PagejsonError): void => {
    request.noRetry = true;
    entry?.reject(error);
  };

  const crawler = new crawlee.PlaywrightCrawler(
    {
      keepAlive: true,
      maxConcurrency: MAX_PAGES,
      maxRequestRetries: MAX_RETRIES,
      // Sessions would tie retries to new browser launches; a retry here reuses the running browser.
      useSessionPool: false,
      navigationTimeoutSecs: timeoutSecs,
      requestHandlerTimeoutSecs: timeoutSecs,
      statusMessageLoggingInterval: 3600,
      headless: true,
      launchContext: {
        launcher: playwright.chromium,
        // An empty user-data-dir makes Playwright create a fresh temporary profile per launch and delete it.
        userDataDir: '',
        launchOptions: {
          executablePath: chromiumPath,
          headless: true,
          args: CHROMIUM_ARGS,
          // All traffic, loopback included (Playwright's default), goes through the guard proxy.
          proxy: { server: proxy.url },
        },
      },
      browserPoolOptions: { useFingerprints: false, maxOpenPagesPerBrowser: MAX_PAGES * 2 },
      preNavigationHooks: [
        async ({ page, request }, gotoOptions) => {
          const entry = keepAlive.pendingFor(request);
          if (!entry) throw new crawlee.NonRetryableError('the fetch was already settled');
          // A settled fetch (deadline, caller abort) frees its page at once; navigation then fails fast.
          entry.abort.addEventListener('abort', () => void page.close().catch(() => undefined), { once: true });
          const state: PageState = {
            navigationHosts: new Set([new URL(request.url).hostname]),
            documents: await watchDocuments(page, {
              maxBytes: options.maxBytes,
              onTooLarge: () => entry.reject(tooLargeError(options.maxBytes)),
              // A blocked hop is reported by the proxy; anything else is a network failure of the source.
              onFailed: (reason) => entry.reject(pageFailure(state, proxy, options.maxBytes) ?? toFetchError(new Error(reason), options.timeoutMs)),
            }),
          };
          page.on('request', (sent: PageRequest) => {
            if (sent.isNavigationRequest() && sent.frame() === page.mainFrame()) state.navigationHosts.add(new URL(sent.url()).hostname);
          });
          page.on('response', (response: Response) => {
            const sent = response.request();
            if (sent.isNavigationRequest() && sent.frame() === page.mainFrame()) state.mainResponse = response;
          });
          pages.set(page, state);
          Object.assign(gotoOptions ?? {}, { waitUntil: 'domcontentloaded', timeout: Math.max(1, entry.deadline - Date.now()) });
        },
      ],
      requestHandler: async ({ page, request, response }) => {
        const entry = keepAlive.pendingFor(request);
        if (!entry) return;
        const failure = pageFailure(pages.get(page), proxy, options.maxBytes);
        if (failure) return fail(entry, request, failure);
        if (!response) return fail(entry, request, new PagejsonError('FETCH_FAILED', 'the page gave no response'));
        const status = response.status();
        // Retryable statuses go through Crawlee's retry path (errorHandler paces them).
        if (status >= 400) throw new Error(`${status} - the source answered HTTP ${status}`);
        const headers = response.headers();
        try {
          assertAnnouncedLength(headers['content-length'], options.maxBytes);
        } catch (error) {
          return fail(entry, request, error as PagejsonError);
        }
        const idleBudget = Math.min(NETWORK_IDLE_CAP_MS, entry.deadline - Date.now() - CONTENT_RESERVE_MS);
        if (idleBudget > 0) await page.waitForLoadState('networkidle', { timeout: idleBudget }).catch(() => undefined);
        const html = await page.content();
        if (Buffer.byteLength(html) > options.maxBytes) return fail(entry, request, tooLargeError(options.maxBytes));
        entry.resolve({ finalUrl: page.url(), status, headers, html });
      },
      errorHandler: async ({ request, page }, error) => {
        const entry = keepAlive.pendingFor(request);
        const specific = pageFailure(page ? pages.get(page) : undefined, proxy, options.maxBytes);
        const status = statusOfCrawleeError(error);
        const backoff = retryBackoffMs(request.retryCount);
        if (!entry || specific || status === undefined || !isRetryableStatus(status) || Date.now() + backoff >= entry.deadline) {
          return fail(entry, request, specific ?? launchFailure(error, chromiumPath) ?? toFetchError(error, options.timeoutMs));
        }
        await waitForBackoff(backoff, entry.abort);
      },
      failedRequestHandler: async ({ request, page }, error) => {
        const specific = pageFailure(page ? pages.get(page) : undefined, proxy, options.maxBytes);
        keepAlive.pendingFor(request)?.reject(specific ?? launchFailure(error, chromiumPath) ?? toFetchError(error, options.timeoutMs));
      },
    },
    config,
  );
  keepAlive = createKeepAliveCrawler(crawler, () => proxy.close());
  return keepAlive;
}

function cannotStartError(chromiumPath: string, cause?: unknown): PagejsonError {
  return new PagejsonError('BROWSER_UNAVAILABLE', `Chromium at ${chromiumPath} could not be started`, {
    context: { path: chromiumPath },
    cause,
    hint: 'check that it is Debian\'s chromium (`apt-get install chromium`), or point PAGEJSON_CHROMIUM at a working Chromium',
  });
}

function launchFailure(error: unknown, chromiumPath: string): PagejsonError | undefined {
  const message = (error as { message?: string } | undefined)?.message ?? '';
  return /failed to launch|launch the browser|Executable doesn't exist|browserType\.launch/i.test(message) ? cannotStartError(chromiumPath, error) : undefined;
}

/**
 * Crawlee's browser pool waits out a browser that fails to launch until the fetch's deadline, so the
 * executable is checked once up front: it must exist and answer `--version`.
 */
async function checkChromium(chromiumPath: string): Promise<void> {
  try {
    await access(chromiumPath, constants.X_OK);
  } catch (error) {
    throw browserUnavailableError(chromiumPath, error);
  }
  const { execFile } = await import('node:child_process');
  await new Promise<void>((resolve, reject) =>
    execFile(chromiumPath, ['--version'], { timeout: VERSION_CHECK_TIMEOUT_MS }, (error) => (error ? reject(cannotStartError(chromiumPath, error)) : resolve())),
  );
}

export function createBrowserScraper(options: ScraperOptions): Scraper {
  const chromiumPath = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH;
  let crawler: Promise<KeepAliveCrawler> | undefined;
  let closed = false;
  return {
    name: 'browser',
    async fetch(request) {
      if (request.session) throw sessionUnsupportedError('browser');
      const url = sourceUrl(request.url);
      assertAllowedUrlHost(url, options.allowPrivateNetworks);
      if (closed) throw new PagejsonError('FETCH_FAILED', 'the scraper is closed');
      crawler ??= checkChromium(chromiumPath).then(() => buildCrawler(options, chromiumPath));
      const promise = crawler;
      // A missing browser may be installed later: do not keep the failure forever.
      promise.catch(() => {
        if (crawler === promise) crawler = undefined;
      });
      const ready = await promise;
      return ready.submit(url.href, { timeoutMs: options.timeoutMs, signal: request.signal });
    },
    async close() {
      closed = true;
      const ready = await crawler?.catch(() => undefined);
      await ready?.close();
    },
  };
}
