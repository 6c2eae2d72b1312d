import type { CookieJar } from 'tough-cookie';
import { isPagejsonError, type PagejsonError } from '../../shared/index.js';
import { assertAllowedUrlHost } from '../net/address-guard.js';
import { proxyFailure, proxyLevelReason } from '../net/proxy-attempts.js';
import type { ProxyCandidate } from '../net/proxy-rotation.js';
import { assertAllowedProxiedTarget } from '../net/proxy-target.js';
import { mergeCookieHeader, type ResolvedAccess } from '../net/request-access.js';
import type { GuardProxy } from './browser-guard-proxy.js';

/**
 * Scraper 2's share of docs/access.md: got-scraping options that send the endpoint's headers and cookies to
 * the pages that may have them (each redirect hop judged by its own URL) and go through a proxy. Through a
 * proxy the socket is the proxy's, so the guarded DNS lookup (which would judge the proxy's address) gives
 * way to checking each hop's host by name (proxy-target.ts).
 */

export interface CrawleeVia {
  access: ResolvedAccess;
  proxy?: ProxyCandidate | undefined;
  /**
   * For an `https://` proxy: a guard on loopback chained to it (proxy-tunnel.ts), which got-scraping talks to
   * instead. got-scraping opens its CONNECT to an https proxy without checking the proxy's certificate, so it
   * would hand the proxy's credentials to whoever answers; the guard verifies it (issue 45).
   */
  guard?: GuardProxy | undefined;
}

/** The guard's address with its credential, as got-scraping takes a proxy (user info in the URL). */
function guardProxyUrl(guard: GuardProxy): string {
  const url = new URL(guard.url);
  url.username = guard.browserProxy.username;
  url.password = guard.browserProxy.password;
  return url.href;
}

interface RedirectOptions {
  url?: URL | string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** The session's cookie jar with the configured cookies added for the URLs that may have them. */
function withConfiguredCookies(jar: CookieJar, access: ResolvedAccess) {
  return {
    getCookieString: async (url: string): Promise<string> =>
      mergeCookieHeader((await jar.getCookieString(url)) || undefined, access.cookiesFor(url)) ?? '',
    setCookie: (raw: string, url: string): Promise<unknown> => jar.setCookie(raw, url, { ignoreError: true }),
  };
}

/** Options spread last into got-scraping's, overriding the direct defaults where access or a proxy asks. */
export function crawleeAccessOptions(url: string, jar: CookieJar, via: CrawleeVia, allowPrivateNetworks: boolean): Record<string, unknown> {
  const { access, proxy } = via;
  if (!access.sendsAnything && !proxy) return {};
  const configuredNames = Object.keys(access.headersFor(url));
  const beforeRedirect = async (next: RedirectOptions): Promise<void> => {
    const target = String(next.url ?? '');
    if (proxy) await assertAllowedProxiedTarget(target, allowPrivateNetworks);
    else assertAllowedUrlHost(target, allowPrivateNetworks);
    const allowed = access.headersFor(target);
    for (const name of configuredNames) {
      if (allowed[name] === undefined) delete next.headers[name];
      else next.headers[name] = allowed[name];
    }
  };
  return {
    ...(access.sendsAnything ? { headers: access.headersFor(url), cookieJar: withConfiguredCookies(jar, access) } : {}),
    ...(proxy ? { proxyUrl: via.guard ? guardProxyUrl(via.guard) : proxy.url.href, dnsLookup: undefined } : {}),
    hooks: { beforeRedirect: [beforeRedirect] },
  };
}

/** Why the https proxy behind the guard failed for the page's host, if it did (remembered by the guard). */
export function guardedProxyFailure(via: CrawleeVia, url: string): PagejsonError | undefined {
  const reason = via.guard?.upstreamFailure(new URL(url).hostname);
  return reason && via.proxy ? proxyFailure(via.proxy, reason) : undefined;
}

/** An error before any response came, through a proxy: the proxy's when it is (proxy-attempts.ts). */
export function asProxyFailure(error: unknown, via: CrawleeVia, signal: AbortSignal, url: string): unknown {
  if (!via.proxy || signal.aborted) return error;
  const behindGuard = guardedProxyFailure(via, url);
  if (behindGuard) return behindGuard;
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    // got's own timeout (the fetch's deadline) says ETIMEDOUT too, and is not the proxy's.
    if (isPagejsonError(current) || (current as { name?: unknown }).name === 'TimeoutError') return error;
    current = current instanceof Error ? current.cause : undefined;
  }
  const reason = proxyLevelReason(error);
  return reason ? proxyFailure(via.proxy, reason) : error;
}
