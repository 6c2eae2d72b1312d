import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { gotScraping, TransformHeadersAgent, type PlainResponse, type Request as GotRequest } from 'got-scraping';
import { isPagejsonError } from '../../shared/index.js';
import { assertAllowedUrlHost, blockedAddressError, createGuardedLookup, isAllowedAddress } from '../net/address-guard.js';
import { assertAnnouncedLength, readBodyWithLimit } from '../net/body-limit.js';
import { pageFromBytes } from '../net/charset.js';
import { startDeadline } from '../net/deadline.js';
import { assertHtmlContentType, mediaType, notHtmlError, sniffsAsHtml } from '../net/html-response.js';
import { retryWaitMs, sessionUnsupportedError, sourceUrl, waitForBackoff } from './crawlee-common.js';
import { abortedError, closedError, isRetryableStatus, statusError, timeoutError, toFetchError } from './crawlee-errors.js';
import { BLOCKED_STATUSES, createSessionPool, type FingerprintSession } from './crawlee-sessions.js';
import type { CookieJar } from 'tough-cookie';
import type { FetchResult, Scraper, ScraperOptions } from './types.js';
import { asProxyFailure, crawleeAccessOptions, guardedProxyFailure, type CrawleeVia } from './crawlee-access.js';
import { createChainedGuards } from './browser-access.js';
import type { ProxyCandidate } from '../net/proxy-rotation.js';
import { proxyFailure, proxyStatusReason, throughProxies } from '../net/proxy-attempts.js';
import { accessResolverFor, resolveAccess } from '../net/request-access.js';

/**
 * Scraper 2: got-scraping, the HTTP client of Crawlee's HTTP crawlers, used directly (docs/decisions.md,
 * "Scrapers 2 (crawlee) and 3 (browser)"): generated browser headers per fingerprint session, HTTP/2
 * where the server offers it, and retries with backoff on 403/429/5xx under one deadline (a 429 only after its
 * Retry-After; without one the pool pauses the origin instead). Loaded only
 * through `await import`, so got-scraping stays off the CLI's start path.
 */

const MAX_REDIRECTS = 5;
/** Retries after the first attempt; the total deadline cuts them short anyway. */
const MAX_RETRIES = 2;
/**
 * Enough distinct fingerprints to rotate through on 403/429 (a fetch makes at most 3 attempts), few enough
 * that a fresh scraper is not generating headers for a new session on most of its first fetches (~0.5 ms each).
 */
const SESSION_POOL_SIZE = 10;
/** Crawlee's default `maxUsageCount`: a session (and what its cookie jar gathered) is replaced after it. */
const SESSION_MAX_USES = 50;
const HEADER_GENERATOR_OPTIONS = {
  browsers: [
    { name: 'chrome', minVersion: 120 },
    { name: 'firefox', minVersion: 120 },
  ],
  devices: ['desktop'],
  locales: ['en-US', 'en'],
  operatingSystems: ['windows', 'macos', 'linux'],
};

interface Attempt extends CrawleeVia {
  url: string;
  session: FingerprintSession;
  deadlineAt: number;
  signal: AbortSignal;
}

function flattenHeaders(headers: PlainResponse['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Resolves with the response head (status, headers, connected address), before any body byte is read. */
function responseOf(stream: GotRequest): Promise<PlainResponse> {
  return new Promise<PlainResponse>((resolve, reject) => {
    stream.once('response', resolve);
    stream.once('error', reject);
  });
}

export function createCrawleeScraper(options: ScraperOptions): Scraper {
  // Our own keep-alive agents, wrapped like got-scraping's defaults (which keep browser header order), rather
  // than Node's global ones, so that close() ends every socket this scraper opened. HTTP/2 sessions live in
  // http2-wrapper's global agent and end by its idle timeout.
  const sockets = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const agent = { http: new TransformHeadersAgent(sockets.http), https: new TransformHeadersAgent(sockets.https) };
  const sessions = createSessionPool({ maxSize: SESSION_POOL_SIZE, maxUses: SESSION_MAX_USES });
  const guardedLookup = createGuardedLookup(options.allowPrivateNetworks);
  const resolver = accessResolverFor(options);
  const inFlight = new Set<AbortController>();
  const chained = createChainedGuards(options.allowPrivateNetworks);
  let closed = false;

  /** How a fetch goes through `proxy`: an `https://` one behind a verifying guard (crawlee-access.ts). */
  async function viaProxy(access: CrawleeVia['access'], proxy: ProxyCandidate | undefined): Promise<CrawleeVia> {
    if (proxy?.url.protocol !== 'https:') return { access, proxy };
    return { access, proxy, guard: await chained.for(proxy) };
  }

  /** One request through got-scraping; the body is read only when status, address, type and length pass. */
  async function requestOnce(attempt: Attempt): Promise<FetchResult> {
    const stream = gotScraping.stream(attempt.url, {
      sessionToken: attempt.session.token,
      cookieJar: attempt.session.cookieJar,
      headerGeneratorOptions: HEADER_GENERATOR_OPTIONS,
      agent,
      // Names are checked when the socket connects (no gap between check and use); literal IPs in redirects
      // never reach a lookup, so each hop's host is checked as well.
      dnsLookup: guardedLookup,
      hooks: { beforeRedirect: [(next) => assertAllowedUrlHost(next.url ?? '', options.allowPrivateNetworks)] },
      maxRedirects: MAX_REDIRECTS,
      timeout: { request: Math.max(1, attempt.deadlineAt - Date.now()) },
      signal: attempt.signal,
      // got-scraping accepts any certificate by default; scraper 1 and the browser verify, and so does this one.
      https: { rejectUnauthorized: true },
      // The endpoint's headers, cookies and proxy (docs/access.md) override the direct defaults above.
      ...crawleeAccessOptions(attempt.url, attempt.session.cookieJar, attempt, options.allowPrivateNetworks),
    });
    // Errors after we stopped listening (a destroyed stream) must not go unhandled.
    stream.on('error', () => undefined);
    try {
      const response = await responseOf(stream).catch((error: unknown) => {
        throw asProxyFailure(error, attempt, attempt.signal, attempt.url);
      });
      if (attempt.proxy && response.statusCode === 407) throw proxyFailure(attempt.proxy, proxyStatusReason(407));
      // The guard before an https proxy answers 502 when that proxy failed, and remembers why.
      if (attempt.guard && response.statusCode === 502)
        throw guardedProxyFailure(attempt, response.url) ?? statusError(502, response.headers);
      // Through a proxy the connected address is the proxy's: the page's host was checked by name instead.
      if (!attempt.proxy && response.ip && !isAllowedAddress(response.ip, options.allowPrivateNetworks))
        throw blockedAddressError(response.ip);
      if (response.statusCode >= 400) throw statusError(response.statusCode, response.headers);
      const contentType = response.headers['content-type'];
      assertHtmlContentType(contentType);
      assertAnnouncedLength(response.headers['content-length'], options.maxBytes);
      const bytes = await readBodyWithLimit(stream, options.maxBytes);
      if (mediaType(contentType) === undefined && !sniffsAsHtml(bytes)) throw notHtmlError();
      return pageFromBytes(
        { finalUrl: response.url, status: response.statusCode, headers: flattenHeaders(response.headers) },
        bytes,
        contentType,
      );
    } catch (error) {
      // A body we will not read must not keep its socket: destroying the stream closes the connection.
      stream.destroy();
      throw error;
    }
  }

  /** Attempts until one answers, a failure is final, or the next backoff would pass the deadline. */
  async function fetchWithRetries(
    url: string,
    deadlineAt: number,
    signal: AbortSignal,
    via: CrawleeVia,
    loginJar?: CookieJar,
  ): Promise<FetchResult> {
    let blocked: FingerprintSession | undefined;
    for (let attempt = 0; ; attempt += 1) {
      const session = sessions.take(blocked);
      try {
        // With a login, the fingerprint goes with the endpoint's session cookies (fetch/login/).
        const result = await requestOnce({
          url,
          session: loginJar ? { token: session.token, cookieJar: loginJar } : session,
          deadlineAt,
          signal,
          ...via,
        });
        sessions.release(session, false);
        return result;
      } catch (error) {
        const status = isPagejsonError(error) && error.code === 'FETCH_STATUS' ? Number(error.context.status) : undefined;
        const isBlocked = status !== undefined && BLOCKED_STATUSES.has(status);
        sessions.release(session, isBlocked);
        blocked = isBlocked ? session : undefined;
        const backoff = retryWaitMs(error, attempt);
        if (status === undefined || !isRetryableStatus(status) || attempt >= MAX_RETRIES || Date.now() + backoff >= deadlineAt) throw error;
        await waitForBackoff(backoff, signal);
        if (signal.aborted) throw error;
      }
    }
  }

  return {
    name: 'crawlee',
    async fetch(request) {
      if (request.session) throw sessionUnsupportedError('crawlee');
      const url = sourceUrl(request.url);
      assertAllowedUrlHost(url, options.allowPrivateNetworks);
      if (closed) throw closedError();
      if (request.signal?.aborted) throw abortedError();
      // Stopped by the caller's signal or by close(); the deadline runs on top of it.
      const stop = new AbortController();
      const onCaller = (): void => stop.abort();
      request.signal?.addEventListener('abort', onCaller, { once: true });
      const { deadline, signal, dispose } = startDeadline(options.timeoutMs, stop.signal);
      inFlight.add(stop);
      try {
        const deadlineAt = Date.now() + options.timeoutMs;
        const access = resolveAccess(url.href, request.access, resolver);
        return await throughProxies(access.candidates, resolver.proxies, access.endpoint, signal, async (proxy) =>
          fetchWithRetries(url.href, deadlineAt, signal, await viaProxy(access, proxy), request.loginSession?.jar),
        );
      } catch (error) {
        if (request.signal?.aborted) throw abortedError();
        if (stop.signal.aborted) throw closedError();
        if (deadline.aborted) throw timeoutError(options.timeoutMs);
        throw toFetchError(error, options.timeoutMs);
      } finally {
        inFlight.delete(stop);
        request.signal?.removeEventListener('abort', onCaller);
        dispose();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const stop of inFlight) stop.abort();
      sockets.http.destroy();
      sockets.https.destroy();
      await chained.close();
    },
  };
}
