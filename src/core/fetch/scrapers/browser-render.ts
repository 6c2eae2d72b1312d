import type { Browser, BrowserContext, Page, Request as PageRequest, Response } from 'playwright-core';
import { isPagejsonError, PagejsonError } from '../../shared/index.js';
import { blockedAddressError } from '../net/address-guard.js';
import { assertAnnouncedLength, tooLargeError } from '../net/body-limit.js';
import { assertHtmlContentType } from '../net/html-response.js';
import { BLOCKED_HEADER, type GuardBrowserProxy, type GuardProxy } from './browser-guard-proxy.js';
import { DEFAULT_ACTIONS_TIMEOUT_MS, runPageSteps } from './browser-steps.js';
import { watchDocuments } from './browser-watch.js';
import { retryWaitMs, waitForBackoff } from './crawlee-common.js';
import { isRetryableStatus, pageCrashedError, statusError, toFetchError } from './crawlee-errors.js';
import type { BrowserStorage } from '../login/session-codec.js';
import type { PageSteps } from './page-steps.js';
import type { FetchResult, PageCharset } from './types.js';
import { charsetFromContentType, sniffUndeclared } from '../net/charset.js';
import type { ResolvedAccess } from '../net/request-access.js';
import { REMOTE_CONTEXT_OPTIONS, routeThroughGuard, settleRedirects, type RoutedContext } from './browser-remote-route.js';

/**
 * One scraper-3 fetch: a browser context of its own (no cookies, storage or cache shared with other fetches),
 * one page in it, and every other page the site opens (popups, `noopener` or not) closed as it appears.
 * Downloads are refused. When the fetch ends, by success, failure, deadline or the caller, the context is
 * closed with everything it opened: nothing of the page keeps running in the browser (docs/security.md).
 */

const MAX_RETRIES = 1;
/** Network idle is a heuristic (analytics beacons never stop): wait for it this long at most. */
const NETWORK_IDLE_CAP_MS = 5_000;
/** Time kept back from the deadline for serialising the DOM after waiting for idle. */
const CONTENT_RESERVE_MS = 250;

export interface RenderJob {
  url: string;
  /** Epoch ms after which the fetch has failed anyway: retries and waits are cut to fit before it. */
  deadlineAt: number;
  /** Aborted when the fetch is settled from outside (deadline, caller, close()): the context closes at once. */
  signal: AbortSignal;
  maxBytes: number;
  timeoutMs: number;
  proxy: GuardProxy;
  /** The context's own proxy (a guard chained to a configured proxy, with its credential), when not the browser's. */
  contextProxy?: GuardBrowserProxy | undefined;
  /** Installs the endpoint's headers and cookies on the page (browser-access.ts). */
  sendAccess?: ((page: Page) => Promise<void>) | undefined;
  /** Actions and rounds run on the loaded page before it is read (browser-steps.ts). */
  steps?: PageSteps | undefined;
  /** The endpoint's login session (cookies and local storage) the context starts with (fetch/login/). */
  storageState?: BrowserStorage | undefined;
  actionsTimeoutMs?: number | undefined;
  /**
   * Set when the browser is elsewhere: the context is routed through pagejson (browser-remote-route.ts), which
   * sends the endpoint's headers and cookies itself; `proxy` is then the guard its requests go through.
   */
  remote?: { access?: ResolvedAccess | undefined } | undefined;
  /** The routing of the fetch's context, when remote (set by renderInOwnContext). */
  routed?: RoutedContext | undefined;
}

interface AttemptState {
  /** Hosts of the main document and its redirect hops, to attribute a refused HTTPS tunnel. */
  navigationHosts: Set<string>;
  /** The latest main-frame document response (after redirects), even when navigation then failed. */
  mainResponse?: Response;
  exceeded(): boolean;
}

/** The most specific reason an attempt failed, from what the page saw rather than from the error's wording. */
function pageFailure(state: AttemptState, job: RenderJob): PagejsonError | undefined {
  for (const host of state.navigationHosts) {
    const refused = job.proxy.blockedHost(host);
    if (refused) return blockedAddressError(refused);
  }
  if (state.exceeded()) return tooLargeError(job.maxBytes);
  const undecodable = job.routed?.documentFailure();
  if (undecodable) return undecodable;
  const response = state.mainResponse;
  if (!response) return undefined;
  const refusedByProxy = response.headers()[BLOCKED_HEADER];
  if (refusedByProxy) return blockedAddressError(refusedByProxy);
  const status = response.status();
  if (status >= 400 && !isRetryableStatus(status)) return statusError(status, response.headers());
  try {
    if (status < 400) assertHtmlContentType(response.headers()['content-type']);
  } catch (error) {
    return error as PagejsonError;
  }
  return undefined;
}

/** Popups are closed as they open; the context's close at the end of the fetch ends any that slipped by. */
function closePopups(context: BrowserContext, own: Page): void {
  const close = (page: Page): void => {
    if (page !== own) void page.close().catch(() => undefined);
  };
  context.on('page', close);
  for (const page of context.pages()) close(page);
}

/** The rendered page once the document is in and the network idle (bounded), or why not. */
async function readPage(
  page: Page,
  response: Response | null,
  state: AttemptState,
  job: RenderJob,
  early: Promise<never>,
): Promise<FetchResult> {
  const failure = pageFailure(state, job);
  if (failure) throw failure;
  if (!response) throw new PagejsonError('FETCH_FAILED', 'the page gave no response');
  const status = response.status();
  const headers = response.headers();
  if (status >= 400) throw statusError(status, headers);
  assertAnnouncedLength(headers['content-length'], job.maxBytes);
  const idleBudget = Math.min(NETWORK_IDLE_CAP_MS, job.deadlineAt - Date.now() - CONTENT_RESERVE_MS);
  if (idleBudget > 0) await Promise.race([page.waitForLoadState('networkidle', { timeout: idleBudget }).catch(() => undefined), early]);
  // With steps, the page is read after them (browser-steps.ts).
  const html = job.steps ? '' : await Promise.race([page.content(), early]);
  if (Buffer.byteLength(html) > job.maxBytes) throw tooLargeError(job.maxBytes);
  const charset = await Promise.race([guessedCharset(page, response), early]);
  return { finalUrl: page.url(), status, headers, html, ...(charset ? { charset } : {}) };
}

/**
 * Chromium decodes the page itself; when the header named no charset, the document's own bytes say whether
 * a BOM or meta tag declared one (the same prescan as scrapers 1 and 2) or Chromium guessed, and in what.
 * A declared header charset costs nothing here.
 */
async function guessedCharset(page: Page, response: Response): Promise<PageCharset | undefined> {
  const contentType = response.headers()['content-type'];
  if (charsetFromContentType(contentType) !== undefined) return undefined;
  try {
    const sniffed = sniffUndeclared(await response.body(), contentType).charset;
    if (sniffed?.source !== 'guessed') return undefined;
    // A string, as the core is compiled without the DOM's types; the page could redefine the getter, so bounded.
    const encoding = String(await page.evaluate('document.characterSet'))
      .slice(0, 40)
      .toLowerCase();
    return { encoding, source: 'guessed' };
  } catch {
    // The body is gone (the page navigated on) or the page closed: no note rather than a failed fetch.
    return undefined;
  }
}

/** One navigation of the fetch's page, watched over DevTools for the byte cap and a failed document. */
async function renderOnce(page: Page, job: RenderJob): Promise<FetchResult> {
  let failEarly: (error: unknown) => void = () => undefined;
  const early = new Promise<never>((_resolve, reject) => {
    failEarly = reject;
  });
  early.catch(() => undefined);
  const hosts = new Set([new URL(job.url).hostname]);
  const documents = await watchDocuments(page, {
    maxBytes: job.maxBytes,
    onTooLarge: () => failEarly(tooLargeError(job.maxBytes)),
    // A blocked hop is reported by the proxy; anything else is a network failure of the source.
    onFailed: (reason) => failEarly(pageFailure(state, job) ?? toFetchError(new Error(reason), job.timeoutMs)),
  });
  const state: AttemptState = { navigationHosts: hosts, exceeded: () => documents.exceeded() || job.routed?.tooLarge() === true };
  const onRequest = (sent: PageRequest): void => {
    if (sent.isNavigationRequest() && sent.frame() === page.mainFrame()) hosts.add(new URL(sent.url()).hostname);
  };
  const onResponse = (response: Response): void => {
    const sent = response.request();
    if (sent.isNavigationRequest() && sent.frame() === page.mainFrame()) state.mainResponse = response;
  };
  const onCrash = (): void => failEarly(pageCrashedError());
  page.on('request', onRequest);
  page.on('response', onResponse);
  page.on('crash', onCrash);
  try {
    const navigation = page.goto(job.url, { waitUntil: 'domcontentloaded', timeout: Math.max(1, job.deadlineAt - Date.now()) });
    const first = await Promise.race([navigation, early]);
    // On a remote browser a redirect is a stub page that refreshes to its target (browser-remote-route.ts).
    const response = job.routed
      ? await Promise.race([settleRedirects(page, first, () => state.mainResponse, job.deadlineAt), early])
      : first;
    return await readPage(page, response, state, job, early);
  } catch (error) {
    throw pageFailure(state, job) ?? (isPagejsonError(error) ? error : toFetchError(error, job.timeoutMs));
  } finally {
    page.off('request', onRequest);
    page.off('response', onResponse);
    page.off('crash', onCrash);
    // Not awaited: detaching from a crashed page's renderer waits for the context to close.
    void documents.stop();
  }
}

/** Retries a retryable status (403, 429 after its Retry-After, 5xx) once, with backoff, if the deadline leaves room for it. */
async function renderWithRetry(page: Page, job: RenderJob): Promise<FetchResult> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await renderOnce(page, job);
    } catch (error) {
      const status = isPagejsonError(error) && error.code === 'FETCH_STATUS' ? Number(error.context.status) : undefined;
      const backoff = retryWaitMs(error, attempt);
      if (status === undefined || !isRetryableStatus(status) || attempt >= MAX_RETRIES || Date.now() + backoff >= job.deadlineAt)
        throw error;
      await waitForBackoff(backoff, job.signal);
      if (job.signal.aborted) throw error;
    }
  }
}

export async function renderInOwnContext(browser: Browser, job: RenderJob): Promise<FetchResult> {
  const context = await browser.newContext({
    ...(job.remote ? REMOTE_CONTEXT_OPTIONS : { acceptDownloads: false }),
    ...(job.contextProxy && !job.remote ? { proxy: { ...job.contextProxy } } : {}),
    ...(job.storageState ? { storageState: job.storageState } : {}),
  });
  let routed: RoutedContext | undefined;
  const closeContext = async (): Promise<void> => {
    await context.close().catch(() => undefined);
    await routed?.close();
  };
  const onAbort = (): void => void closeContext();
  job.signal.addEventListener('abort', onAbort, { once: true });
  try {
    if (job.signal.aborted) throw new PagejsonError('FETCH_FAILED', 'the fetch was settled before its page opened');
    if (job.remote)
      routed = await routeThroughGuard(context, {
        guard: job.proxy,
        access: job.remote.access,
        maxBytes: job.maxBytes,
        timeoutMs: job.timeoutMs,
      });
    const page = await context.newPage();
    if (!job.remote) await job.sendAccess?.(page);
    closePopups(context, page);
    const loaded = await renderWithRetry(page, { ...job, routed });
    return job.steps
      ? await runPageSteps(page, loaded, {
          steps: job.steps,
          deadlineAt: job.deadlineAt,
          actionsTimeoutMs: job.actionsTimeoutMs ?? DEFAULT_ACTIONS_TIMEOUT_MS,
          maxBytes: job.maxBytes,
          signal: job.signal,
          ...(routed ? { refusedTooLarge: routed.tooLarge } : {}),
        })
      : loaded;
  } finally {
    job.signal.removeEventListener('abort', onAbort);
    await closeContext();
  }
}
