import type { Readable } from 'node:stream';
import { request, type Agent, type Dispatcher } from 'undici';
import type { CookieJar } from 'tough-cookie';
import { PagejsonError, isPagejsonError } from '../../shared/index.js';
import { assertAllowedUrlHost } from '../net/address-guard.js';
import { announcedLength, assertAnnouncedLength, readBodyWithLimit } from '../net/body-limit.js';
import { pageFromBytes } from '../net/charset.js';
import { startDeadline } from '../net/deadline.js';
import { createGuardedAgent } from '../net/guarded-agent.js';
import { assertHtmlContentType, decodedStream, isIdentityEncoding, mediaType, notHtmlError, sniffsAsHtml } from '../net/html-response.js';
import { statusFacts } from '../net/block-page.js';
import { createSessionStore } from '../net/session-store.js';
import { isProxyFailure, proxyFailure, proxyLevelReason, proxyStatusReason, throughProxies } from '../net/proxy-attempts.js';
import { createProxyDispatchers } from '../net/proxy-dispatchers.js';
import type { ProxyCandidate } from '../net/proxy-rotation.js';
import { assertAllowedProxiedTarget } from '../net/proxy-target.js';
import { accessResolverFor, mergeCookieHeader, resolveAccess, type ResolvedAccess } from '../net/request-access.js';
import type { FetchRequest, FetchResult, Scraper, ScraperOptions } from './types.js';

/**
 * Scraper 1: plain HTTP with undici. Browser-like headers, gzip/deflate/br, redirects followed by hand (each
 * hop checked against the address guard), one total deadline, a byte cap while streaming, charset
 * sniffing, and the optional origin session of docs/wire.md (use session).
 */
export const MAX_REDIRECTS = 5;

const BROWSER_HEADERS = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
} as const;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

interface HopContext {
  signal: AbortSignal;
  jar?: CookieJar;
  referer?: string;
  /** The endpoint's headers, cookies and proxies (docs/access.md). */
  access?: ResolvedAccess;
  proxy?: ProxyCandidate | undefined;
}

interface FinalResponse {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export function createHttpScraper(options: ScraperOptions): Scraper {
  const agent: Agent = createGuardedAgent({
    allowPrivateNetworks: options.allowPrivateNetworks,
    timeoutMs: options.timeoutMs,
  });
  const sessions = createSessionStore();
  const resolver = accessResolverFor(options);
  const proxied = createProxyDispatchers({ timeoutMs: options.timeoutMs });
  let closed = false;

  async function requestHop(url: string, context: HopContext): Promise<FinalResponse> {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new PagejsonError('FETCH_FAILED', `unsupported URL scheme ${target.protocol}`, { context: { url } });
    }
    // Through a proxy the connected socket is the proxy's: the source is checked by name first (proxy-target.ts).
    if (context.proxy) await assertAllowedProxiedTarget(target, options.allowPrivateNetworks);
    else assertAllowedUrlHost(target, options.allowPrivateNetworks);
    const headers: Record<string, string> = { ...BROWSER_HEADERS, ...context.access?.headersFor(target) };
    if (context.referer) headers.referer = context.referer;
    const jarCookie = context.jar ? await context.jar.getCookieString(url) : undefined;
    const cookie = mergeCookieHeader(jarCookie || undefined, context.access?.cookiesFor(target));
    if (cookie) headers.cookie = cookie;
    const response = await send(url, headers, context);
    if (context.jar) await storeCookies(context.jar, url, response.headers['set-cookie']);
    return { url, status: response.statusCode, headers: response.headers, body: response.body };
  }

  /** One request, direct or through the hop's proxy, a failure of the proxy itself told apart (proxy-attempts.ts). */
  async function send(url: string, headers: Record<string, string>, context: HopContext): Promise<Dispatcher.ResponseData> {
    if (!context.proxy) return request(url, { dispatcher: agent, method: 'GET', headers, signal: context.signal });
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, { dispatcher: proxied.for(context.proxy), method: 'GET', headers, signal: context.signal });
    } catch (error) {
      const reason = context.signal.aborted || isProxyFailure(error) ? undefined : proxyLevelReason(error);
      throw reason ? proxyFailure(context.proxy, reason) : error;
    }
    if (response.statusCode !== 407) return response;
    await discard(response.body);
    throw proxyFailure(context.proxy, proxyStatusReason(407));
  }

  /** Follows up to MAX_REDIRECTS redirects and returns the first non-redirect response, body unread. */
  async function followRedirects(startUrl: string, context: HopContext): Promise<FinalResponse> {
    const visited = new Set<string>();
    let url = startUrl;
    for (let hop = 0; ; hop += 1) {
      visited.add(url);
      const response = await requestHop(url, context);
      const location = headerValue(response.headers.location);
      if (!REDIRECT_STATUSES.has(response.status) || !location) return response;
      await discard(response.body);
      const next = new URL(location, url);
      next.hash = '';
      // With a cookie jar, coming back to the same URL after a Set-Cookie is a normal handshake, not a loop.
      if (!context.jar && visited.has(next.href)) {
        throw new PagejsonError('FETCH_TOO_MANY_REDIRECTS', 'redirect loop', { context: { url: next.href } });
      }
      if (hop + 1 > MAX_REDIRECTS) {
        throw new PagejsonError('FETCH_TOO_MANY_REDIRECTS', 'too many redirects', { context: { max: MAX_REDIRECTS } });
      }
      url = next.href;
    }
  }

  async function fetchDocument(url: string, context: HopContext): Promise<FetchResult> {
    const response = await followRedirects(url, context);
    const headers = flattenHeaders(response.headers);
    let stream: Readable = response.body;
    try {
      if (response.status >= 400) {
        throw new PagejsonError('FETCH_STATUS', `HTTP ${response.status}`, {
          context: { status: response.status, url: response.url, ...statusFacts(response.headers) },
        });
      }
      assertHtmlContentType(headers['content-type']);
      const identity = isIdentityEncoding(headers['content-encoding']);
      if (identity) assertAnnouncedLength(headers['content-length'], options.maxBytes);
      // With Transfer-Encoding too, the length is not what frames the body (undici's parser refuses such a
      // response today; this does not rely on it): such a response is streamed under the cap.
      const announced = identity && headers['transfer-encoding'] === undefined ? announcedLength(headers['content-length']) : undefined;
      let bytes: Buffer;
      if (announced !== undefined) {
        // As sent, with a length already checked against the cap: the body cannot be longer (the parser
        // reads exactly that many bytes), so it is taken whole, without a stream iterator per chunk.
        bytes = Buffer.from(await response.body.arrayBuffer());
      } else {
        stream = decodedStream(response.body, headers['content-encoding']);
        bytes = await readBodyWithLimit(stream, options.maxBytes);
      }
      if (mediaType(headers['content-type']) === undefined && !sniffsAsHtml(bytes)) throw notHtmlError();
      return pageFromBytes({ finalUrl: response.url, status: response.status, headers }, bytes, headers['content-type']);
    } catch (error) {
      // A body we will not read must not keep its socket: destroying it closes the connection.
      release(stream);
      release(response.body);
      throw error;
    }
  }

  /** Use session (docs/wire.md): visit the origin with a cookie jar, then the target with its cookies and a Referer. */
  async function fetchWithSession(url: string, base: HopContext): Promise<FetchResult> {
    const origin = new URL(url).origin;
    const referer = `${origin}/`;
    const establish = async (jar: CookieJar) => {
      const landing = await followRedirects(referer, { ...base, jar });
      await discard(landing.body);
    };
    const { session, reused } = await sessions.get(origin, establish);
    try {
      return await fetchDocument(url, { ...base, jar: session.jar, referer });
    } catch (error) {
      const status = isPagejsonError(error) ? error.context.status : undefined;
      if (!reused || (status !== 401 && status !== 403)) throw error;
      // The cached session was refused: it expired on the server. Renew it once and try again.
      sessions.invalidate(origin, session);
      const renewed = await sessions.get(origin, establish);
      return await fetchDocument(url, { ...base, jar: renewed.session.jar, referer });
    }
  }

  return {
    name: 'http',
    async fetch(fetchRequest: FetchRequest): Promise<FetchResult> {
      if (closed) throw new PagejsonError('FETCH_FAILED', 'scraper is closed');
      const { deadline, signal, dispose } = startDeadline(options.timeoutMs, fetchRequest.signal);
      try {
        const access = resolveAccess(fetchRequest.url, fetchRequest.access, resolver);
        return await throughProxies(access.candidates, resolver.proxies, access.endpoint, signal, (proxy) =>
          // A login's session (fetch/login/) stands in for the origin handshake.
          fetchRequest.session && !fetchRequest.loginSession
            ? fetchWithSession(fetchRequest.url, { signal, access, proxy })
            : fetchDocument(fetchRequest.url, {
                signal,
                access,
                proxy,
                ...(fetchRequest.loginSession ? { jar: fetchRequest.loginSession.jar } : {}),
              }),
        );
      } catch (error) {
        throw toFetchError(error, { deadline, callerSignal: fetchRequest.signal, timeoutMs: options.timeoutMs, url: fetchRequest.url });
      } finally {
        dispose();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      sessions.clear();
      await proxied.close();
      // Graceful first; anything still hanging after a moment is cut off so close() always returns.
      const grace = setTimeout(() => void agent.destroy().catch(() => undefined), 1_000);
      try {
        await agent.close();
      } finally {
        clearTimeout(grace);
      }
    },
  };
}

async function storeCookies(jar: CookieJar, url: string, setCookie: string | string[] | undefined): Promise<void> {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  for (const cookie of cookies) {
    // A malformed or foreign-domain cookie is the server's problem, not a reason to fail the fetch.
    await jar.setCookie(cookie, url, { ignoreError: true });
  }
}

/** Drains a body we do not need (small ones keep the socket reusable; big ones get the socket closed). */
async function discard(body: Readable & { dump?: (options: { limit: number }) => Promise<void> }): Promise<void> {
  try {
    if (body.dump) await body.dump({ limit: 64 * 1024 });
    else release(body);
  } catch {
    release(body);
  }
}

/** Destroys a stream nobody reads any more; undici emits an AbortError on it, which must not go uncaught. */
function release(stream: Readable): void {
  if (stream.listenerCount('error') === 0) stream.on('error', () => undefined);
  stream.destroy();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  UND_ERR_SOCKET: 'connection closed before the response was complete',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'response body length does not match Content-Length',
  Z_DATA_ERROR: 'could not decompress the response',
  Z_BUF_ERROR: 'could not decompress the response',
  ERR_BROTLI_DECOMPRESSION_FAILED: 'could not decompress the response',
};

/** Every failure leaves the scraper as a PagejsonError of the FETCH_ family with a short reason. */
export function toFetchError(
  error: unknown,
  facts: { deadline: AbortSignal; callerSignal: AbortSignal | undefined; timeoutMs: number; url: string },
): PagejsonError {
  const typed = findPagejsonError(error);
  if (typed) return typed;
  if (facts.deadline.aborted) {
    return new PagejsonError('FETCH_TIMEOUT', `timed out after ${facts.timeoutMs} ms`, {
      context: { timeoutMs: facts.timeoutMs, url: facts.url },
      hint: 'the source is slow or hung; raise fetch.timeoutMs in pagejson.json if it is just slow',
      cause: error,
    });
  }
  if (facts.callerSignal?.aborted) {
    return new PagejsonError('FETCH_FAILED', 'aborted', { context: { url: facts.url }, cause: error });
  }
  const code = errorCode(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new PagejsonError('FETCH_TIMEOUT', `timed out after ${facts.timeoutMs} ms`, { context: { url: facts.url }, cause: error });
  }
  const reason = (code && NETWORK_REASONS[code]) ?? (error instanceof Error ? error.message : String(error));
  return new PagejsonError('FETCH_FAILED', reason, { context: { url: facts.url, code }, cause: error });
}

function findPagejsonError(error: unknown): PagejsonError | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (isPagejsonError(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code in NETWORK_REASONS) return code;
    if (typeof code === 'string' && code.startsWith('UND_ERR_') && code.endsWith('TIMEOUT')) return code;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
