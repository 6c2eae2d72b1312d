import { access, constants } from 'node:fs/promises';
import PQueue from 'p-queue';
import type { Browser, Page } from 'playwright-core';
import { isPagejsonError } from '../../shared/index.js';
import { assertAllowedUrlHost } from '../net/address-guard.js';
import { startDeadline } from '../net/deadline.js';
import { launchBrowser, type RunningBrowser } from './browser-launch.js';
import { connectBrowser, remoteLabel, remoteLostError } from './browser-connect.js';
import { renderInOwnContext } from './browser-render.js';
import { sessionUnsupportedError, sourceUrl } from './crawlee-common.js';
import { abortedError, closedError, timeoutError, toFetchError } from './crawlee-errors.js';
import type { PageSteps } from './page-steps.js';
import { browserStorageOf, type BrowserStorage } from '../login/session-codec.js';
import type { SignsIn } from '../login/pool-logins.js';
import { signInWithSteps } from './browser-login.js';
import type { Scraper, ScraperOptions } from './types.js';
import { asUpstreamFailure, createChainedGuards, sendRequestAccess } from './browser-access.js';
import { throughProxies } from '../net/proxy-attempts.js';
import type { ProxyCandidate } from '../net/proxy-rotation.js';
import { accessResolverFor, resolveAccess, type ResolvedAccess } from '../net/request-access.js';

export { browserUnavailableError } from './browser-launch.js';

/**
 * Scraper 3: the system Chromium through Playwright (docs/decisions.md, "Scrapers 2 (crawlee) and 3
 * (browser)"), or a browser elsewhere (`browser.connect`, browser-connect.ts). One browser per scraper,
 * launched or connected on first use and again after it died or the connection was lost; each fetch renders in
 * a browser context of its own (browser-render.ts), at most `browser.maxSessions` at a time. Loaded only
 * through `await import`, so Playwright stays off the CLI's start path.
 */

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
const MAX_PAGES = 3;
/** How long the round trip after a failed page on a remote browser is waited for (see stillConnected). */
const ANSWER_CHECK_MS = 5_000;

/** What `status` and `/readyz` say about scraper 3's browser. */
export interface BrowserProbe {
  /** `local Chromium /usr/bin/chromium`, or `Playwright server ws://host:3000/` (never a token). */
  browser: string;
  uses: 'local' | 'playwright' | 'cdp';
  answers: boolean;
  problem?: string;
}

/** Settles with the promise, or rejects as soon as the signal aborts (the promise carries on regardless). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Whether the connection to a remote browser is still there: a page fails (its navigation aborted) a moment
 * before a lost connection is noticed, so after a failure this asks for a round trip rather than trusting
 * `isConnected`. Only a refused round trip counts as lost; a slow one (a busy browser) does not.
 */
async function stillConnected(browser: Browser): Promise<boolean> {
  if (!browser.isConnected()) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), ANSWER_CHECK_MS);
  });
  const asked = browser.newBrowserCDPSession().then(
    async (session) => {
      await session.detach().catch(() => undefined);
      return true;
    },
    () => false,
  );
  try {
    return (await Promise.race([asked, late])) && browser.isConnected();
  } finally {
    clearTimeout(timer);
  }
}

export function createBrowserScraper(options: ScraperOptions): Scraper & SignsIn & { probe(signal: AbortSignal): Promise<BrowserProbe> } {
  const chromiumPath = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH;
  const remote = options.browser?.remote;
  const pages = new PQueue({ concurrency: options.browser?.maxSessions ?? MAX_PAGES });
  const inFlight = new Set<AbortController>();
  let running: Promise<RunningBrowser> | undefined;
  let closed = false;
  const resolver = accessResolverFor(options);
  const chained = createChainedGuards(options.allowPrivateNetworks);

  /**
   * The running browser, launched on first use. A failed launch is not kept (Chromium may be installed
   * later), nor is a browser that died: the next fetch launches another. A launch outlives the fetch that
   * started it, so a slow first start still serves the fetches after it.
   */
  function browser(): Promise<RunningBrowser> {
    if (running) return running;
    const starting = remote
      ? connectBrowser(remote, options.env ?? {}, options.allowPrivateNetworks)
      : launchBrowser(chromiumPath, options.allowPrivateNetworks);
    running = starting;
    starting.then(
      (started) =>
        started.browser.on('disconnected', () => {
          if (running === starting) running = undefined;
        }),
      () => {
        if (running === starting) running = undefined;
      },
    );
    return starting;
  }

  async function render(
    url: string,
    signal: AbortSignal,
    steps: PageSteps | undefined,
    via: { access: ResolvedAccess; candidate: ProxyCandidate | undefined },
    storageState?: BrowserStorage,
  ): Promise<ReturnType<typeof renderInOwnContext>> {
    const deadlineAt = Date.now() + options.timeoutMs;
    const { browser: chromium, proxy: direct, remote: elsewhere } = await untilAborted(browser(), signal);
    // Through a configured proxy: the context's own guard, chained to it (browser-access.ts).
    const proxy = via.candidate ? await chained.for(via.candidate) : direct;
    const access = elsewhere
      ? { remote: { access: via.access } }
      : {
          ...(via.candidate ? { contextProxy: proxy.browserProxy } : {}),
          ...(via.access.sendsAnything ? { sendAccess: (page: Page) => sendRequestAccess(page, via.access) } : {}),
        };
    return pages
      .add(
        () =>
          renderInOwnContext(chromium, {
            url,
            deadlineAt,
            signal,
            maxBytes: options.maxBytes,
            timeoutMs: options.timeoutMs,
            proxy,
            steps,
            actionsTimeoutMs: options.actionsTimeoutMs,
            storageState,
            ...access,
          }),
        { signal },
      )
      .catch(async (error: unknown) => {
        if (remote && elsewhere && !(await stillConnected(chromium))) throw remoteLostError(remote, error);
        throw asUpstreamFailure(error, via.candidate, proxy, url);
      });
  }

  return {
    name: 'browser',
    async fetch(request) {
      if (request.session) throw sessionUnsupportedError('browser');
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
        const access = resolveAccess(url.href, request.access, resolver);
        // A login's session: the context starts with its cookies and local storage (fetch/login/).
        const storage = request.loginSession ? await browserStorageOf(request.loginSession) : undefined;
        return await throughProxies(access.candidates, resolver.proxies, access.endpoint, signal, (candidate) =>
          render(url.href, signal, request.steps, { access, candidate }, storage),
        );
      } catch (error) {
        if (request.signal?.aborted) throw abortedError();
        if (stop.signal.aborted) throw closedError();
        if (isPagejsonError(error) && error.code !== 'FETCH_FAILED') throw error;
        if (deadline.aborted) throw timeoutError(options.timeoutMs);
        throw isPagejsonError(error) ? error : toFetchError(error, options.timeoutMs);
      } finally {
        inFlight.delete(stop);
        request.signal?.removeEventListener('abort', onCaller);
        dispose();
      }
    },
    /** A login's browser steps (browser-login.ts), in this scraper's browser. */
    async signIn(job) {
      if (closed) throw closedError();
      const { browser: chromium, proxy: direct, remote: elsewhere } = await untilAborted(browser(), job.signal);
      // Through the endpoint's proxy when it has one, as its fetches (sticky: the same exit).
      const candidate = job.endpoint === undefined ? undefined : resolver.proxies.proxyFor(job.endpoint, job.proxy, new URL(job.url));
      const guard = candidate ? await chained.for(candidate) : direct;
      return signInWithSteps(chromium, job, {
        maxBytes: options.maxBytes,
        actionsTimeoutMs: options.actionsTimeoutMs,
        ...(elsewhere ? { remoteGuard: guard } : candidate ? { contextProxy: guard.browserProxy } : {}),
      });
    },
    /** Whether the browser answers: a remote one is connected to (bounded by `signal`), a local one only if it runs. */
    async probe(signal) {
      const label = remote ? remoteLabel(remote) : `local Chromium ${chromiumPath}`;
      const uses = remote?.kind ?? 'local';
      if (closed) return { browser: label, uses, answers: false, problem: 'scraper 3 is closed' };
      // A local Chromium is launched by the first fetch that needs it, not by a probe.
      if (!remote && !running)
        return access(chromiumPath, constants.X_OK).then(
          () => ({ browser: label, uses, answers: true }),
          () => ({ browser: label, uses, answers: false, problem: `Chromium was not found at ${chromiumPath}` }),
        );
      try {
        const { browser: connected } = await untilAborted(browser(), signal);
        return connected.isConnected()
          ? { browser: label, uses, answers: true }
          : { browser: label, uses, answers: false, problem: 'disconnected' };
      } catch (error) {
        const problem = isPagejsonError(error) ? error.message : signal.aborted ? 'it did not answer in time' : String(error);
        return { browser: label, uses, answers: false, problem };
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      // Aborting also takes queued fetches out of the page queue (p-queue rejects them with their signal).
      for (const stop of inFlight) stop.abort();
      const started = await running?.catch(() => undefined);
      running = undefined;
      await started?.close();
      await chained.close();
    },
  };
}
