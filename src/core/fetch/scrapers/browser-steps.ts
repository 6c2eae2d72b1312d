import type { Page, Response } from 'playwright-core';
import { PagejsonError } from '../../shared/index.js';
import { blockedAddressError } from '../net/address-guard.js';
import { tooLargeError } from '../net/body-limit.js';
import { runActions } from './browser-actions.js';
import { BLOCKED_HEADER } from './browser-guard-proxy.js';
import { pageSignature, runRounds } from './browser-rounds.js';
import { watchDocuments } from './browser-watch.js';
import { pageCrashedError, statusError } from './crawlee-errors.js';
import type { PageSteps } from './page-steps.js';
import type { FetchResult } from './types.js';

/**
 * A scraper-3 fetch's steps on its loaded page (docs/actions.md): the config's actions, then the load-more or
 * scroll rounds, then the page read as it is (no further wait for the network: the steps say what to wait for). Everything here runs within one time bound, the earlier of
 * `fetch.actionsTimeoutMs` from now and the fetch's own deadline (less the time to read the page), so that a
 * step that never succeeds fails with its own error rather than the fetch's timeout. A step may navigate (a
 * form sent with Enter): the new document is watched like the first one (byte cap, address guard, status).
 */

/** fetch.actionsTimeoutMs's default (config/schema.ts), for callers that pass none. */
export const DEFAULT_ACTIONS_TIMEOUT_MS = 10_000;
/** After a round, the page is read once it stopped changing for this long (at most ROUND_QUIET_CAP_MS). */
const QUIET_MS = 150;
const ROUND_QUIET_CAP_MS = 2_000;
/** Time kept back from the fetch's deadline for reading the page. */
const READ_RESERVE_MS = 250;

export interface StepsJob {
  steps: PageSteps;
  /** The fetch's deadline (epoch ms). */
  deadlineAt: number;
  actionsTimeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
  /** On a remote browser: whether pagejson refused a document past the byte cap (the browser saw it fail). */
  refusedTooLarge?: () => boolean;
}

/** The time bound of the steps, and the setting that sets it (named when a step runs out of it). */
function stepsBound(job: StepsJob): { deadlineAt: number; setting: string } {
  const own = Date.now() + job.actionsTimeoutMs;
  const fetchEnd = job.deadlineAt - READ_RESERVE_MS;
  return own <= fetchEnd ? { deadlineAt: own, setting: 'fetch.actionsTimeoutMs' } : { deadlineAt: fetchEnd, setting: 'fetch.timeoutMs' };
}

/** Waits until the page stopped changing for QUIET_MS (a batch of items inserted one by one), bounded. */
async function quiet(page: Page, until: number): Promise<void> {
  let last = await pageSignature(page);
  while (Date.now() + QUIET_MS < until) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const now = await pageSignature(page);
    if (now === last) return;
    last = now;
  }
}

/** The main document's responses during the steps: a step that navigated is judged by the new one. */
function watchNavigations(page: Page): { last(): Response | undefined; stop(): void } {
  let latest: Response | undefined;
  const onResponse = (response: Response): void => {
    const sent = response.request();
    if (sent.isNavigationRequest() && sent.frame() === page.mainFrame()) latest = response;
  };
  page.on('response', onResponse);
  return { last: () => latest, stop: () => page.off('response', onResponse) };
}

function navigationFailure(response: Response | undefined): PagejsonError | undefined {
  if (!response) return undefined;
  const refused = response.headers()[BLOCKED_HEADER];
  if (refused) return blockedAddressError(refused);
  return response.status() >= 400 ? statusError(response.status()) : undefined;
}

interface Reader {
  read(afterRound: boolean): Promise<FetchResult>;
}

/** Reads the page once it settled: bounded by the fetch's deadline (the steps' bound is for the steps). */
function reader(page: Page, loaded: FetchResult, job: StepsJob, navigations: ReturnType<typeof watchNavigations>): Reader {
  return {
    async read(afterRound) {
      const end = job.deadlineAt - READ_RESERVE_MS;
      await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, end - Date.now()) }).catch(() => undefined);
      // After the actions the page is read as the last step left it (end with a `wait` for what you need, as
      // with Firecrawl's actions); after a click or scroll of a round, once it stopped changing.
      if (afterRound) await quiet(page, Math.min(end, Date.now() + ROUND_QUIET_CAP_MS));
      const navigated = navigations.last();
      const failure = navigationFailure(navigated);
      if (failure) throw failure;
      const html = await page.content();
      if (Buffer.byteLength(html) > job.maxBytes) throw tooLargeError(job.maxBytes);
      if (!navigated) return { finalUrl: page.url(), status: loaded.status, headers: loaded.headers, html };
      return { finalUrl: page.url(), status: navigated.status(), headers: navigated.headers(), html };
    },
  };
}

async function runSteps(
  page: Page,
  loaded: FetchResult,
  job: StepsJob,
  navigations: ReturnType<typeof watchNavigations>,
): Promise<FetchResult> {
  const bound = stepsBound(job);
  const { actions, values, rounds } = job.steps;
  if (actions && actions.length > 0)
    await runActions(page, actions, { deadlineAt: bound.deadlineAt, boundSetting: bound.setting, values, signal: job.signal });
  const pages = reader(page, loaded, job, navigations);
  if (!rounds) return pages.read(false);
  let reads = 0;
  const { outcome, last } = await runRounds(page, rounds, { deadlineAt: bound.deadlineAt, read: () => pages.read(reads++ > 0) });
  return { ...last, rounds: outcome };
}

/** Runs the steps on the loaded page and reads it; fails early on a crash or a document past the byte cap. */
export async function runPageSteps(page: Page, loaded: FetchResult, job: StepsJob): Promise<FetchResult> {
  let failEarly: (error: unknown) => void = () => undefined;
  const early = new Promise<never>((_resolve, reject) => {
    failEarly = reject;
  });
  early.catch(() => undefined);
  const documents = await watchDocuments(page, {
    maxBytes: job.maxBytes,
    onTooLarge: () => failEarly(tooLargeError(job.maxBytes)),
    onFailed: (reason) =>
      failEarly(
        job.refusedTooLarge?.()
          ? tooLargeError(job.maxBytes)
          : new PagejsonError('FETCH_FAILED', `the page a step opened failed to load: ${reason}`),
      ),
  });
  const navigations = watchNavigations(page);
  const onCrash = (): void => failEarly(pageCrashedError());
  page.on('crash', onCrash);
  try {
    return await Promise.race([runSteps(page, loaded, job, navigations), early]);
  } finally {
    page.off('crash', onCrash);
    navigations.stop();
    void documents.stop();
  }
}
