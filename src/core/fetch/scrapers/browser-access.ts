import type { CDPSession, Page } from 'playwright-core';
import { proxyFailure } from '../net/proxy-attempts.js';
import { mergeCookieHeader, type ResolvedAccess } from '../net/request-access.js';
import { startGuardProxy, type GuardProxy } from './browser-guard-proxy.js';
import type { ProxyCandidate } from '../net/proxy-rotation.js';

/**
 * Scraper 3's share of docs/access.md.
 *
 * Headers and cookies: every request of the page (document, redirect hop, frame, script, XHR) is paused by
 * Chromium's DevTools `Fetch` domain and continued with the configured headers and cookies when its own URL
 * may have them. Playwright's `route.continue({ headers })` is not used: it carries a request's headers over
 * to the redirects it leads to, whatever their origin, and the issue asks for the opposite
 * (docs/decisions.md, "Request headers and redirects"). The site's own cookies are kept beside them.
 *
 * Proxies: Chromium reaches every page through the guard proxy on loopback (browser-guard-proxy.ts); for a
 * fetch through a configured proxy the browser context gets a guard of its own chained to that proxy
 * (net/proxy-tunnel.ts), one per proxy, kept until the scraper closes.
 */

interface PausedRequest {
  requestId: string;
  request: { url: string; headers: Record<string, string> };
}

export function withAccess(
  headers: Record<string, string>,
  configured: Record<string, string>,
  cookies: string | undefined,
): Array<{ name: string; value: string }> {
  const entries: Array<{ name: string; value: string }> = [];
  let siteCookies: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'cookie') siteCookies = value;
    else if (configured[lower] === undefined) entries.push({ name, value });
  }
  for (const [name, value] of Object.entries(configured)) entries.push({ name, value });
  const cookie = mergeCookieHeader(siteCookies, cookies);
  if (cookie) entries.push({ name: 'Cookie', value: cookie });
  return entries;
}

/** Sends the endpoint's headers and cookies with every request of the page that may have them. */
export async function sendRequestAccess(page: Page, access: ResolvedAccess): Promise<void> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  cdp.on('Fetch.requestPaused', (event: PausedRequest) => {
    const configured = access.headersFor(event.request.url);
    const cookies = access.cookiesFor(event.request.url);
    const changed = Object.keys(configured).length > 0 || cookies !== undefined;
    const headers = changed ? { headers: withAccess(event.request.headers, configured, cookies) } : {};
    // A request of a page that is closing fails to continue: nothing is waiting for it any more.
    cdp.send('Fetch.continueRequest', { requestId: event.requestId, ...headers }).catch(() => undefined);
  });
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
}

export interface ChainedGuards {
  /** The guard proxy chained to `candidate` (started on first use). */
  for(candidate: ProxyCandidate): Promise<GuardProxy>;
  close(): Promise<void>;
}

export function createChainedGuards(allowPrivateNetworks: boolean): ChainedGuards {
  const guards = new Map<string, Promise<GuardProxy>>();
  return {
    for(candidate) {
      let guard = guards.get(candidate.url.href);
      if (!guard) {
        guard = startGuardProxy(allowPrivateNetworks, candidate);
        guard.catch(() => guards.delete(candidate.url.href));
        guards.set(candidate.url.href, guard);
      }
      return guard;
    },
    async close() {
      const all = [...guards.values()];
      guards.clear();
      await Promise.all(all.map(async (guard) => (await guard.catch(() => undefined))?.close()));
    },
  };
}

/** A render that failed because the upstream proxy did (the guard remembered why): the proxy's failure. */
export function asUpstreamFailure(error: unknown, candidate: ProxyCandidate | undefined, guard: GuardProxy, url: string): unknown {
  if (!candidate) return error;
  const reason = guard.upstreamFailure(new URL(url).hostname);
  return reason ? proxyFailure(candidate, reason) : error;
}
