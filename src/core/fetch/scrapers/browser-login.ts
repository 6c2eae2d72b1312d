import type { Browser, Page, Response } from 'playwright-core';
import { isPagejsonError, PagejsonError } from '../../shared/index.js';
import { assertNotBlocked } from '../net/block-page.js';
import { loginFailed } from '../login/login-errors.js';
import type { BrowserLoginJob } from '../login/login-manager.js';
import type { BrowserCookie, BrowserStorage } from '../login/session-codec.js';
import { runActions } from './browser-actions.js';
import { DEFAULT_ACTIONS_TIMEOUT_MS } from './browser-steps.js';
import { toFetchError } from './crawlee-errors.js';
import type { GuardBrowserProxy, GuardProxy } from './browser-guard-proxy.js';
import { REMOTE_CONTEXT_OPTIONS, routeThroughGuard, settleRedirects, type RoutedContext } from './browser-remote-route.js';

/**
 * A login's browser steps (docs/access.md, "Logins"): the login page opened in a browser context of its own,
 * the steps run on it with the runner of `actions` (browser-actions.ts), and the context's storage state
 * (cookies and local storage) kept as the endpoint's session; the context is closed whatever happens. The login
 * failed when the page answers an error status, a step fails, or a visible password field is still there after
 * the steps. The browser's guard proxy checks every address, as for any fetch.
 */
const IDLE_CAP_MS = 5_000;
const RESERVE_MS = 250;

async function stillAsksForPassword(page: Page): Promise<boolean> {
  const fields = page.locator('css=input[type="password"]');
  const count = await fields.count().catch(() => 0);
  for (let index = 0; index < count; index += 1)
    if (
      await fields
        .nth(index)
        .isVisible()
        .catch(() => false)
    )
      return true;
  return false;
}

/** An ACTION_FAILED of a login step says it was the login's step; Playwright's own errors become FETCH_ ones. */
function asLoginError(error: unknown, timeoutMs: number): unknown {
  if (!isPagejsonError(error)) return toFetchError(error, timeoutMs);
  if (error.code !== 'ACTION_FAILED') return error;
  return loginFailed(`login ${error.message}`, error.hint ?? 'check the selectors of login.steps against the login page', {
    step: error.context.step,
  });
}

async function runSteps(
  page: Page,
  job: BrowserLoginJob,
  options: { maxBytes: number; actionsTimeoutMs: number; routed: boolean },
): Promise<void> {
  let latest: Response | undefined;
  page.on('response', (seen) => {
    if (seen.request().isNavigationRequest() && seen.frame() === page.mainFrame()) latest = seen;
  });
  const first = await page.goto(job.url, { waitUntil: 'domcontentloaded', timeout: Math.max(1, job.deadlineAt - Date.now()) });
  // On a remote browser a redirect is a stub page that refreshes to its target (browser-remote-route.ts).
  const response = options.routed ? await settleRedirects(page, first, () => latest, job.deadlineAt) : first;
  const status = response?.status() ?? 0;
  if (status >= 400)
    throw loginFailed(`the login page answered HTTP ${status}`, 'check login.url: it must be the page with the login form');
  const html = await page.content();
  if (Buffer.byteLength(html) <= options.maxBytes) assertNotBlocked({ headers: response?.headers() ?? {}, html }, job.url);
  const deadlineAt = Math.min(job.deadlineAt - RESERVE_MS, Date.now() + options.actionsTimeoutMs);
  const bound = deadlineAt === job.deadlineAt - RESERVE_MS ? 'fetch.timeoutMs' : 'fetch.actionsTimeoutMs';
  await runActions(page, job.steps, { deadlineAt, boundSetting: bound, signal: job.signal });
  const idle = Math.min(IDLE_CAP_MS, job.deadlineAt - RESERVE_MS - Date.now());
  if (idle > 0) await page.waitForLoadState('networkidle', { timeout: idle }).catch(() => undefined);
  if (await stillAsksForPassword(page)) {
    throw loginFailed(
      'the login form is still there after the steps: the credentials were not accepted, or the steps did not send the form',
      'check the values the steps type (the environment variables they name) and that a step sends the form (a click on its button, or press Enter)',
    );
  }
}

export async function signInWithSteps(
  browser: Browser,
  job: BrowserLoginJob,
  options: {
    maxBytes: number;
    actionsTimeoutMs?: number | undefined;
    contextProxy?: GuardBrowserProxy | undefined;
    /** On a remote browser: the guard every request of the login's context is sent through (browser-remote-route.ts). */
    remoteGuard?: GuardProxy | undefined;
  },
): Promise<BrowserStorage> {
  const started = Date.now();
  const context = await browser.newContext(
    options.remoteGuard
      ? REMOTE_CONTEXT_OPTIONS
      : { acceptDownloads: false, ...(options.contextProxy ? { proxy: { ...options.contextProxy } } : {}) },
  );
  let routed: RoutedContext | undefined;
  const closeContext = async (): Promise<void> => {
    await context.close().catch(() => undefined);
    await routed?.close();
  };
  const onAbort = (): void => void closeContext();
  job.signal.addEventListener('abort', onAbort, { once: true });
  try {
    if (job.signal.aborted) throw new PagejsonError('FETCH_FAILED', 'the login was settled before its page opened');
    if (options.remoteGuard)
      routed = await routeThroughGuard(context, {
        guard: options.remoteGuard,
        maxBytes: options.maxBytes,
        timeoutMs: Math.max(1, job.deadlineAt - Date.now()),
      });
    const page = await context.newPage();
    context.on('page', (other) => {
      if (other !== page) void other.close().catch(() => undefined);
    });
    await runSteps(page, job, {
      maxBytes: options.maxBytes,
      actionsTimeoutMs: options.actionsTimeoutMs ?? DEFAULT_ACTIONS_TIMEOUT_MS,
      routed: routed !== undefined,
    });
    const state = await context.storageState();
    return { cookies: state.cookies as BrowserCookie[], origins: state.origins };
  } catch (error) {
    throw asLoginError(error, Math.max(0, job.deadlineAt - started));
  } finally {
    job.signal.removeEventListener('abort', onAbort);
    await closeContext();
  }
}
