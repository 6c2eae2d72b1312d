import { Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import type { Request as CrawleeRequest, RequestQueue } from '@crawlee/cheerio';
import { PagejsonError } from '../../shared/index.js';
import { assertAllowedUrlHost, blockedAddressError, createGuardedLookup, isAllowedAddress } from '../net/address-guard.js';
import { assertAnnouncedLength, readBodyWithLimit, tooLargeError } from '../net/body-limit.js';
import { pageFromBytes } from '../net/charset.js';
import { assertHtmlContentType, mediaType, notHtmlError, sniffsAsHtml } from '../net/html-response.js';
import { crawleeConfiguration, retryBackoffMs, sessionUnsupportedError, sourceUrl, waitForBackoff } from './crawlee-common.js';
import { isRetryableStatus, statusError, statusOfCrawleeError, toFetchError } from './crawlee-errors.js';
import { createKeepAliveCrawler, type KeepAliveCrawler } from './crawlee-keepalive.js';
import { createMemoryRequestManager } from './crawlee-request-manager.js';
import type { FetchResult, Scraper, ScraperOptions } from './types.js';

/**
 * Scraper 2: Crawlee's CheerioCrawler, i.e. got-scraping with generated browser headers, HTTP/2 where the
 * server offers it, a session pool, and retries with backoff on 403/429/5xx. One long-lived crawler per
 * scraper; this file is only ever loaded through `await import`, so Crawlee stays off the CLI's start path.
 */

const MAX_REDIRECTS = 5;
/** Retries after the first attempt; the total deadline cuts them short anyway. */
const MAX_RETRIES = 2;
/**
 * Enough distinct fingerprints to rotate through on 403/429 (a fetch makes at most 3 attempts), few enough
 * that a fresh scraper is not generating headers for a new session on most of its first fetches: each new
 * session costs a header generation (~0.5 ms), and the pool adds one per fetch until it is full.
 */
const SESSION_POOL_SIZE = 10;
const HEADER_GENERATOR_OPTIONS = {
  browsers: [{ name: 'chrome', minVersion: 120 }, { name: 'firefox', minVersion: 120 }],
  devices: ['desktop'],
  locales: ['en-US', 'en'],
  operatingSystems: ['windows', 'macos', 'linux'],
};

/** The parts of got's response stream the hooks look at (Crawlee's types hide them). */
interface ResponseStream extends Readable {
  statusCode: number;
  headers: IncomingHttpHeaders;
  url: string;
  ip?: string;
}

interface HookContext {
  request: CrawleeRequest;
  response?: ResponseStream;
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function destroyResponse(context: { response?: unknown }): void {
  const response = context.response as Partial<ResponseStream> | undefined;
  if (response && typeof response.destroy === 'function' && !response.destroyed) response.destroy();
}

async function buildCrawler(options: ScraperOptions): Promise<KeepAliveCrawler> {
  const [crawlee, { TransformHeadersAgent }] = await Promise.all([import('@crawlee/cheerio'), import('got-scraping')]);
  // Our own keep-alive agents (wrapped like got-scraping's defaults, which keep browser header order) rather
  // than Node's global ones, so that close() can end every socket this scraper opened.
  const socketAgents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const agent = { http: new TransformHeadersAgent(socketAgents.http), https: new TransformHeadersAgent(socketAgents.https) };
  const config = crawleeConfiguration(crawlee);
  // eslint-disable-next-line prefer-const -- the hooks below close over it before the crawler exists
  let keepAlive: KeepAliveCrawler;
  const navigationTimeoutSecs = Math.ceil(options.timeoutMs / 1000) + 1;
  const guardedLookup = createGuardedLookup(options.allowPrivateNetworks);

  const crawler = new crawlee.CheerioCrawler(
    {
      keepAlive: true,
      // Passed as `requestQueue`: Crawlee's option validation does not know its newer `requestManager` option
      // yet, and a queue is only ever used through the request-manager interface.
      requestQueue: createMemoryRequestManager(crawlee.Request) as unknown as RequestQueue,
      maxRequestRetries: MAX_RETRIES,
      maxSessionRotations: MAX_RETRIES,
      // The pool adds a session (cookie jar, header fingerprint) per request until it is full; 1,000 by default.
      sessionPoolOptions: { maxPoolSize: SESSION_POOL_SIZE },
      navigationTimeoutSecs,
      requestHandlerTimeoutSecs: navigationTimeoutSecs,
      // Charset decoding is ours (header, BOM, meta tag): keep Crawlee from re-encoding the body to UTF-8.
      forceResponseEncoding: 'latin1',
      // Crawlee accepts any certificate by default; scraper 1 and the browser verify, and so does this one.
      ignoreSslErrors: false,
      // Content types are judged by our hook (declared HTML, or none and sniffing as HTML), not Crawlee's list.
      additionalMimeTypes: ['*/*'],
      statusMessageLoggingInterval: 3600,
      sameDomainDelaySecs: 0,
      // Nothing is logged anyway (level OFF); no interval for it either.
      autoscaledPoolOptions: { loggingIntervalSecs: null },
      preNavigationHooks: [
        ({ request }, gotOptions) => {
          const entry = keepAlive.pendingFor(request);
          if (!entry) throw new crawlee.NonRetryableError('the fetch was already settled');
          const remaining = Math.max(1, entry.deadline - Date.now());
          Object.assign(gotOptions, {
            signal: entry.abort,
            maxRedirects: MAX_REDIRECTS,
            timeout: { request: remaining },
            headerGeneratorOptions: HEADER_GENERATOR_OPTIONS,
            agent,
          });
          Object.assign(gotOptions, {
            // Names are checked when the socket connects (no gap between check and use); literal IPs in
            // redirects never reach a lookup, so each hop's host is checked as well.
            dnsLookup: guardedLookup,
            hooks: { beforeRedirect: [(next: { url: URL }) => assertAllowedUrlHost(next.url, options.allowPrivateNetworks)] },
          });
        },
      ],
      requestHandler: async ({ request, response, body }) => {
        const entry = keepAlive.pendingFor(request);
        if (!entry) return;
        const stream = response as unknown as ResponseStream;
        const contentType = stream.headers['content-type'];
        const bytes = Buffer.isBuffer(body) ? body : Buffer.from(String(body), 'latin1');
        if (mediaType(contentType) === undefined && !sniffsAsHtml(bytes)) {
          entry.reject(notHtmlError());
          return;
        }
        const result: FetchResult = pageFromBytes({ finalUrl: request.loadedUrl ?? stream.url ?? request.url, status: stream.statusCode, headers: flattenHeaders(stream.headers) }, bytes, contentType);
        entry.resolve(result);
      },
      errorHandler: async ({ request, response }, error) => {
        destroyResponse({ response });
        const entry = keepAlive.pendingFor(request);
        const status = statusOfCrawleeError(error);
        const backoff = retryBackoffMs(request.retryCount);
        if (!entry || status === undefined || !isRetryableStatus(status) || Date.now() + backoff >= entry.deadline) {
          request.noRetry = true;
          entry?.reject(toFetchError(error, options.timeoutMs));
          return;
        }
        await waitForBackoff(backoff, entry.abort);
      },
      failedRequestHandler: async ({ request, response }, error) => {
        destroyResponse({ response });
        keepAlive.pendingFor(request)?.reject(toFetchError(error, options.timeoutMs));
      },
    },
    config,
  );

  /** Runs before Crawlee's own content-type check, so every refusal also closes the response stream. */
  const checkResponse = ({ request, response }: HookContext): void => {
    const entry = keepAlive.pendingFor(request);
    if (!response) return;
    const refuse = (error: PagejsonError): never => {
      request.noRetry = true;
      response.destroy();
      entry?.reject(error);
      throw new crawlee.NonRetryableError(error.message);
    };
    if (!entry) refuse(new PagejsonError('FETCH_FAILED', 'the fetch was already settled'));
    if (response.ip && !isAllowedAddress(response.ip, options.allowPrivateNetworks)) refuse(blockedAddressError(response.ip));
    const status = response.statusCode;
    if (status >= 400 && !isRetryableStatus(status)) refuse(statusError(status));
    try {
      if (status < 400) assertHtmlContentType(response.headers['content-type']);
      assertAnnouncedLength(response.headers['content-length'], options.maxBytes);
    } catch (error) {
      refuse(error as PagejsonError);
    }
    // The cap also holds for bodies Crawlee reads itself (5xx pages) and for bodies without a length.
    response.on('downloadProgress', (progress: { transferred: number }) => {
      if (progress.transferred > options.maxBytes && !response.destroyed) {
        request.noRetry = true;
        entry?.reject(tooLargeError(options.maxBytes));
        response.destroy(tooLargeError(options.maxBytes));
      }
    });
  };
  // Crawlee's own post-navigation hook is its content-type check, which never refuses with `additionalMimeTypes:
  // ['*/*']` but still validates the response with ow (a stack capture) and parses the header: ours replaces it.
  const hooks = crawler as unknown as { postNavigationHooks: unknown[] };
  hooks.postNavigationHooks = [checkResponse];

  // With no same-domain delay (Crawlee's default, and ours) `delayRequest` never delays, yet it parses every
  // URL's registrable domain and remembers each domain's last access in a map that only grows: skip it.
  Object.assign(crawler, { delayRequest: () => false });

  // CheerioCrawler decodes every body as UTF-8 and parses it twice; we need the raw bytes (our charset
  // decoding) and parse later with the config's compiled selectors, so reading the capped body is all.
  Object.assign(crawler, {
    _parseHTML: async (response: ResponseStream) => {
      try {
        return { body: await readBodyWithLimit(response, options.maxBytes) };
      } catch (error) {
        response.destroy();
        throw error;
      }
    },
  });

  keepAlive = createKeepAliveCrawler(crawler, () => {
    socketAgents.http.destroy();
    socketAgents.https.destroy();
  }, { abortOnSuccess: false });
  return keepAlive;
}

export function createCrawleeScraper(options: ScraperOptions): Scraper {
  let crawler: Promise<KeepAliveCrawler> | undefined;
  let closed = false;
  return {
    name: 'crawlee',
    async fetch(request) {
      if (request.session) throw sessionUnsupportedError('crawlee');
      const url = sourceUrl(request.url);
      assertAllowedUrlHost(url, options.allowPrivateNetworks);
      if (closed) throw new PagejsonError('FETCH_FAILED', 'the scraper is closed');
      crawler ??= buildCrawler(options);
      const ready = await crawler;
      return ready.submit(url.href, { timeoutMs: options.timeoutMs, signal: request.signal });
    },
    async close() {
      closed = true;
      const ready = await crawler?.catch(() => undefined);
      await ready?.close();
    },
  };
}
