import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Page, Route } from 'playwright-core';
import type { PagejsonError } from '../errors.js';
import { assertAllowedUrlHost, blockedAddressError, isAllowedAddress } from '../net/address-guard.js';

/**
 * Scraper 3's address guard. Chromium resolves names and connects on its own, so the guard works at the
 * request level: every request of the page (document, redirect hops, scripts, XHR, images) passes through
 * `page.route`, and one whose host is, or resolves to, a refused address is aborted before it is sent.
 * After navigation the main document's server address (`response.serverAddr()`) is checked again, which
 * catches a name that was rebound between our lookup and Chromium's.
 */

export interface PageGuard {
  /** Set when the main document (or one of its redirect hops) was refused: the fetch fails with it. */
  blocked(): PagejsonError | undefined;
}

async function refusal(url: URL, allowPrivateNetworks: boolean, verdicts: Map<string, Promise<PagejsonError | undefined>>): Promise<PagejsonError | undefined> {
  try {
    assertAllowedUrlHost(url, allowPrivateNetworks);
  } catch (error) {
    return error as PagejsonError;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return undefined;
  let verdict = verdicts.get(host);
  if (!verdict) {
    verdict = lookup(host, { all: true }).then(
      (addresses) => {
        const refused = addresses.find((entry) => !isAllowedAddress(entry.address, allowPrivateNetworks));
        return refused ? blockedAddressError(refused.address) : undefined;
      },
      // A name that does not resolve fails in Chromium with its own error; nothing to refuse here.
      () => undefined,
    );
    verdicts.set(host, verdict);
  }
  return verdict;
}

export async function guardPage(page: Page, allowPrivateNetworks: boolean): Promise<PageGuard> {
  let mainDocumentRefusal: PagejsonError | undefined;
  const verdicts = new Map<string, Promise<PagejsonError | undefined>>();
  await page.route('**/*', async (route: Route) => {
    const request = route.request();
    let url: URL;
    try {
      url = new URL(request.url());
    } catch {
      await route.continue().catch(() => undefined);
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      await route.continue().catch(() => undefined);
      return;
    }
    const refused = await refusal(url, allowPrivateNetworks, verdicts);
    if (!refused) {
      await route.continue().catch(() => undefined);
      return;
    }
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) mainDocumentRefusal ??= refused;
    await route.abort('blockedbyclient').catch(() => undefined);
  });
  return { blocked: () => mainDocumentRefusal };
}
