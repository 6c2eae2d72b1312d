import type { Page, Request } from 'playwright-core';
import type { PageRounds, RoundsOutcome, RoundsStop } from './page-steps.js';
import type { FetchResult } from './types.js';

/**
 * `pagination.loadMore` and `pagination.scroll` (docs/actions.md, docs/pagination.md): the page as loaded is
 * read first, then the button is clicked (or the page scrolled to its end) and the page read again, round after
 * round, each read handed to the caller, which extracts and merges it. A round waits for the list's items to
 * grow (not for any change: a "Loading…" label or a spinner is not the items), then for its requests to end.
 * The rounds end when the button is gone or disabled, when a click or scroll brings nothing within ROUND_SETTLE_MS, when the caller says the read
 * added nothing new (or the list is full), at maxPages, or at the time bound (the answer is then partial).
 * Learnt from Maxun's clickLoadMore/scrollDown: "nothing new" is what ends a list, not a count guessed ahead.
 */

/**
 * How long a click or scroll may take to change the page before the list is taken to be at its end, unless
 * requests it started are still in flight (a slow "Load more"): those are waited for up to the time bound.
 */
export const ROUND_SETTLE_MS = 2_000;
const IN_FLIGHT_POLL_MS = 250;
const IN_FLIGHT_GRACE_MS = 500;
const QUIET_POLL_MS = 50;
/** After a round's requests ended, how long more items may take to appear before the round is read. */
const SETTLE_GRACE_MS = 250;

export interface RoundsRun {
  /** Epoch ms after which no new round starts (the pages read so far are the answer). */
  deadlineAt: number;
  /** Reads the page as it is now (waits for it to settle first). */
  read(): Promise<FetchResult>;
}

/**
 * What tells one state of the page from the next: elements, text and height. Scripts run in the page as
 * strings (the core is compiled without the DOM's types); `evaluate` runs in the page's main world, so a page
 * that lies here only cuts its own list.
 */
export const PAGE_SIGNATURE =
  "(() => { const root = document.scrollingElement || document.documentElement; return document.getElementsByTagName('*').length + ':' + (document.body ? document.body.textContent.length : 0) + ':' + root.scrollHeight; })()";
export const SCROLL_TO_END =
  '(() => { const root = document.scrollingElement || document.documentElement; window.scrollTo(0, root.scrollHeight); })()';

export function pageSignature(page: Page): Promise<string> {
  return page.evaluate(PAGE_SIGNATURE) as Promise<string>;
}

/** Whether `moved` (a script true once the round made progress) holds within `ms`. */
async function changedWithin(page: Page, moved: string, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  try {
    await page.waitForFunction(moved, undefined, { timeout: ms });
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') return false;
    throw error;
  }
}

/**
 * What a round waits for. With the list's item selector: their number grows (a button relabelled "Loading…"
 * or a spinner is not progress). Without it, or with a selector the browser's CSS does not know (-1): any
 * change of the page, its requests then waited for (settle).
 */
interface Gauge {
  read(): Promise<string>;
  /** A script true once the page moved on from `before`. */
  moved(before: string): string;
}

const itemCount = (selector: string): string =>
  `(() => { try { return String(document.querySelectorAll(${JSON.stringify(selector)}).length); } catch { return '-1'; } })()`;

async function gaugeOf(page: Page, items: string | undefined): Promise<Gauge> {
  if (items !== undefined) {
    const count = itemCount(items);
    if (Number(await page.evaluate(count)) >= 0)
      return { read: () => page.evaluate(count) as Promise<string>, moved: (before) => `Number(${count}) > ${Number(before)}` };
  }
  return { read: () => pageSignature(page), moved: (before) => `${PAGE_SIGNATURE} !== ${JSON.stringify(before)}` };
}

/** Clicks the button if it is there, shown and enabled; false when it is not (the list's end). */
async function clickLoadMore(page: Page, selector: string, timeout: number): Promise<boolean> {
  const button = page.locator(`css=${selector}`).first();
  if ((await button.count()) === 0 || !(await button.isVisible()) || !(await button.isEnabled())) return false;
  try {
    await button.click({ timeout });
    return true;
  } catch (error) {
    // Gone or hidden between the look and the click: the list ended as the button went.
    if (error instanceof Error && error.name === 'TimeoutError') return false;
    throw error;
  }
}

async function scrollToEnd(page: Page): Promise<boolean> {
  await page.evaluate(SCROLL_TO_END);
  return true;
}

interface InFlight {
  count(): number;
  stop(): void;
}

/** Requests the page starts from now on that have not ended yet. */
function requestsInFlight(page: Page): InFlight {
  const pending = new Set<Request>();
  const add = (request: Request): void => void pending.add(request);
  const end = (request: Request): void => void pending.delete(request);
  page.on('request', add);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return {
    count: () => pending.size,
    stop: () => {
      page.off('request', add);
      page.off('requestfinished', end);
      page.off('requestfailed', end);
    },
  };
}

/** Whether the round made progress: within ROUND_SETTLE_MS, or while what it started still loads. */
async function changedAfter(page: Page, moved: string, run: RoundsRun, inFlight: InFlight): Promise<boolean> {
  if (await changedWithin(page, moved, Math.min(ROUND_SETTLE_MS, run.deadlineAt - Date.now()))) return true;
  if (inFlight.count() === 0) return false;
  while (inFlight.count() > 0 && Date.now() < run.deadlineAt) {
    if (await changedWithin(page, moved, Math.min(IN_FLIGHT_POLL_MS, run.deadlineAt - Date.now()))) return true;
  }
  // The page's script inserts what the last request brought a moment after it ended.
  return changedWithin(page, moved, Math.min(IN_FLIGHT_GRACE_MS, run.deadlineAt - Date.now()));
}

/**
 * After the first sign of progress, the rest of the round: its requests end (waited for at most
 * ROUND_SETTLE_MS: a page that polls forever is read as it is) and nothing more moves within
 * SETTLE_GRACE_MS, so that a batch that arrives after a label change or in parts is read whole.
 */
async function settle(page: Page, gauge: Gauge, run: RoundsRun, inFlight: InFlight): Promise<void> {
  const quietBy = Math.min(run.deadlineAt, Date.now() + ROUND_SETTLE_MS);
  for (;;) {
    while (inFlight.count() > 0 && Date.now() < quietBy) await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
    const now = await gauge.read();
    const grace = Math.min(SETTLE_GRACE_MS, run.deadlineAt - Date.now());
    if (!(await changedWithin(page, gauge.moved(now), grace)) || Date.now() >= quietBy) return;
  }
}

/** One click or scroll and the wait for its effect; why the rounds end, or undefined to read again. */
async function advance(page: Page, rounds: PageRounds, run: RoundsRun): Promise<RoundsStop | undefined> {
  const gauge = await gaugeOf(page, rounds.items);
  const before = await gauge.read();
  const left = run.deadlineAt - Date.now();
  if (left <= 0) return 'time';
  const inFlight = requestsInFlight(page);
  try {
    const acted =
      rounds.kind === 'loadMore' ? await clickLoadMore(page, rounds.selector ?? '', Math.max(1, left)) : await scrollToEnd(page);
    // A click cut short by the time bound is the bound's end, not the list's.
    if (!acted) return Date.now() >= run.deadlineAt ? 'time' : 'button-gone';
    if (await changedAfter(page, gauge.moved(before), run, inFlight)) {
      await settle(page, gauge, run, inFlight);
      return undefined;
    }
  } finally {
    inFlight.stop();
  }
  return Date.now() >= run.deadlineAt ? 'time' : 'nothing-new';
}

export async function runRounds(page: Page, rounds: PageRounds, run: RoundsRun): Promise<{ outcome: RoundsOutcome; last: FetchResult }> {
  let pages = 0;
  for (;;) {
    const last = await run.read();
    pages += 1;
    const end = (stoppedBy: RoundsStop) => ({ outcome: { pages, stoppedBy, partial: stoppedBy === 'time' }, last });
    if (!(await rounds.onPage(last, pages))) return end('caller');
    if (pages >= rounds.maxPages) return end('maxPages');
    if (Date.now() >= run.deadlineAt) return end('time');
    const stop = await advance(page, rounds, run);
    if (stop) return end(stop);
  }
}
