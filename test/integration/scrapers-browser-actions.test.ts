import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserScraper } from '../../src/core/fetch/scrapers/browser.js';
import type { PageSteps } from '../../src/core/fetch/scrapers/page-steps.js';
import type { FetchResult, Scraper, ScraperBrowser } from '../../src/core/fetch/scrapers/types.js';
import { CHROMIUM_PATH, skipBrowserTests } from '../support/chromium.js';
import { ACTION_ITEMS } from '../support/site-routes/actions.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { browserFor, closeSharedPlaywrightServer, SCRAPER3_MODES } from '../support/remote-browser.js';

/**
 * Scraper 3's actions and load-more/scroll rounds (docs/actions.md) on the real system Chromium, against the
 * fixture site's pages as users meet them: a consent wall, content after the network went quiet, search forms,
 * a "Load more" list and an infinite scroll. Each case checks what the page gives with the steps against what
 * it gives without them. Run both ways (issue 51): on a Chromium launched here and through a Playwright server
 * (one per file); the load-more and scroll rounds that wait on real delays run remotely for their core cases only.
 */
const skip = skipBrowserTests();

afterAll(closeSharedPlaywrightServer);

/** A first fetch on each scraper, tried again when a busy machine's launch ran past its deadline (it carries on). */
async function warmUp(scrapers: Scraper[], url: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const failures = await Promise.all(
      scrapers.map((one) =>
        one.fetch({ url }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    );
    const failed = failures.find((error) => error !== undefined);
    if (failed === undefined) return;
    if (attempt === 3) throw failed;
  }
}

const items = (html: string): string[] => [...html.matchAll(/<li class="item[^"]*">(?:<a [^>]*>)?([^<]+)/g)].map((match) => match[1]!);

describe.skipIf(skip).each(SCRAPER3_MODES)('scraper 3 actions (%s)', (mode) => {
  let site: FixtureSite;
  let scraper: Scraper;
  let short: Scraper;

  const options = (actionsTimeoutMs: number, browser: { browser?: ScraperBrowser }) => ({
    ...browser,
    timeoutMs: 30_000,
    maxBytes: 2 * 1024 * 1024,
    allowPrivateNetworks: true,
    perOriginConcurrency: 4,
    chromiumPath: CHROMIUM_PATH,
    actionsTimeoutMs,
  });
  const fetchWith = (path: string, steps?: PageSteps, using = scraper): Promise<FetchResult> =>
    using.fetch({ url: `${site.origin}${path}`, ...(steps ? { steps } : {}) });

  beforeAll(async () => {
    site = await startFixtureSite();
    const browser = await browserFor(mode);
    scraper = createBrowserScraper(options(10_000, browser));
    short = createBrowserScraper(options(1_000, browser));
    // Chromium's first launch can take most of a deadline on a busy machine: done here, not in a case.
    await warmUp([scraper, short], `${site.origin}/index.html`);
  }, 180_000);

  afterAll(async () => {
    await scraper?.close();
    await short?.close();
    await site?.close();
  });

  it('gets past a consent wall with ifExists, and skips the step where there is no wall', async () => {
    const steps: PageSteps = { actions: [{ ifExists: '#consent', then: [{ click: '#accept' }] }] };
    expect(items((await fetchWith('/actions/consent.html?wall=1')).html)).toEqual([]);
    const behind = await fetchWith('/actions/consent.html?wall=1', steps);
    expect(items(behind.html)).toEqual(ACTION_ITEMS.slice(0, 3));
    expect(behind.html).not.toContain('id="consent"');
    expect(items((await fetchWith('/actions/consent.html', steps)).html)).toEqual(ACTION_ITEMS.slice(0, 3));
  });

  it('waits for content that appears after the network went quiet', async () => {
    expect(items((await fetchWith('/actions/late.html?after=1500')).html)).toEqual([]);
    const waited = await fetchWith('/actions/late.html?after=1500', { actions: [{ wait: 'li.late' }] });
    expect(items(waited.html)).toEqual(ACTION_ITEMS.slice(0, 2));
  });

  it('drives a search form with request variables: type, select, then Enter sends it to the results page', async () => {
    const steps: PageSteps = {
      actions: [{ type: '#q', text: '{{ q }}' }, { select: '#sort', value: '{{ sort }}' }, { press: 'Enter' }, { wait: '#results' }],
      values: { q: 'light', sort: 'desc' },
    };
    const result = await fetchWith('/actions/search.html', steps);
    expect(result.finalUrl).toBe(`${site.origin}/actions/results.html?q=light&sort=desc`);
    expect([...result.html.matchAll(/<li class="result">([^<]+)/g)].map((match) => match[1])).toEqual([
      'The Light Fantastic',
      'Light Years',
      'A Light in the Attic',
    ]);
  });

  it('types a value as it is: never as markup, and a {{ }} in a value is not filled again', async () => {
    const value = '<b>x</b> & {{ q }} "light"';
    const shown = await fetchWith('/actions/search.html', {
      actions: [{ type: '#q', text: '{{ q }}' }, { press: 'Enter' }, { wait: 'p.query' }],
      values: { q: value },
    });
    expect(shown.finalUrl).toBe(`${site.origin}/actions/results.html?q=${encodeURIComponent(value).replace(/%20/g, '+')}&sort=asc`);
    expect(shown.html).toContain('<p class="query">&lt;b&gt;x&lt;/b&gt; &amp; {{ q }} "light"</p>');
  });

  it('clicks a button that fills the page in place', async () => {
    const steps: PageSteps = {
      actions: [{ type: '#q', text: '{{ q }}' }, { click: '#go' }, { wait: 'li.result' }],
      values: { q: 'sharp' },
    };
    const result = await fetchWith('/actions/search-js.html', steps);
    expect(result.html).toContain('<li class="result">Sharp Objects</li>');
  });

  it('fails a wait that never matches in bounded time, naming the step and its selector', async () => {
    const failure = fetchWith('/actions/consent.html', { actions: [{ waitMs: 10 }, { wait: 'li.never' }] }, short);
    await expect(failure).rejects.toMatchObject({ code: 'ACTION_FAILED' });
    const error = (await failure.catch((caught: unknown) => caught)) as Error & { hint: string };
    expect(error.message).toMatch(/^step 2 \(wait for "li\.never"\): nothing matched within the \d+ ms left of fetch\.actionsTimeoutMs$/);
    expect(error.hint).toContain('raise fetch.actionsTimeoutMs');
  });

  it('names a nested step by its place, and never shows the typed value', async () => {
    const steps: PageSteps = {
      actions: [{ ifExists: '#consent', then: [{ type: '#password', text: '{{ secret }}' }] }],
      values: { secret: 'hunter2' },
    };
    const error = (await fetchWith('/actions/consent.html?wall=1', steps, short).catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'ACTION_FAILED' });
    expect(error.message).toMatch(/^step 1\.1 \(type "\{\{ secret \}\}" into "#password"\): no field it could fill matched within/);
    expect(JSON.stringify({ message: error.message, context: (error as unknown as { context: unknown }).context })).not.toContain(
      'hunter2',
    );
  });

  it('refuses a waitMs that does not fit in what is left of the bound, at once', async () => {
    await expect(fetchWith('/actions/consent.html', { actions: [{ waitMs: 5_000 }] }, short)).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringMatching(/^step 1 \(wait 5000 ms\): it does not fit in the \d+ ms left of fetch\.actionsTimeoutMs$/),
    });
  });

  it('watches a page a step opens like the first: the byte cap and the HTTP status', async () => {
    await expect(fetchWith('/actions/links.html', { actions: [{ click: '#big' }, { wait: 'p' }] })).rejects.toMatchObject({
      code: 'FETCH_TOO_LARGE',
    });
    await expect(fetchWith('/actions/links.html', { actions: [{ click: '#gone' }] })).rejects.toMatchObject({
      code: 'FETCH_STATUS',
      context: { status: 404 },
    });
  });

  it('says what Playwright found wrong with a step that cannot work on its element', async () => {
    await expect(fetchWith('/actions/search.html', { actions: [{ type: 'h1', text: 'x' }] }, short)).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringMatching(/^step 1 \(type "x" into "h1"\): .*not an <input>/),
    });
  });
});

describe.skipIf(skip).each(SCRAPER3_MODES)('scraper 3 load-more and scroll rounds (%s)', (mode) => {
  let site: FixtureSite;
  let scraper: Scraper;
  let short: Scraper;
  const options = (actionsTimeoutMs: number, browser: { browser?: ScraperBrowser }) => ({
    ...browser,
    timeoutMs: 30_000,
    maxBytes: 2 * 1024 * 1024,
    allowPrivateNetworks: true,
    perOriginConcurrency: 4,
    chromiumPath: CHROMIUM_PATH,
    actionsTimeoutMs,
  });

  beforeAll(async () => {
    site = await startFixtureSite();
    const browser = await browserFor(mode);
    // A bound the rounds meet on a loaded machine, where each round's requests cross to the remote browser and
    // back: the cases below end by how the page ends, not by the bound (`short` has its own).
    scraper = createBrowserScraper(options(20_000, browser));
    short = createBrowserScraper(options(1_000, browser));
    await warmUp([scraper, short], `${site.origin}/index.html`);
  }, 180_000);

  afterAll(async () => {
    await scraper?.close();
    await short?.close();
    await site?.close();
  });

  // Through the Playwright server: the core cases (each way a round ends, the waits on requests in flight, which
  // are routed through pagejson there); the other page variants run here only, as they wait on real delays.
  const localOnly = it.runIf(mode === 'local');

  /** Rounds with an onPage that records each read's items and goes on while a read adds any. */
  async function rounds(
    path: string,
    kind: 'loadMore' | 'scroll',
    maxPages: number,
    using = scraper,
    actions?: PageSteps['actions'],
    itemSelector?: string,
  ) {
    const reads: string[][] = [];
    const seen = new Set<string>();
    const result = await using.fetch({
      url: `${site.origin}${path}`,
      steps: {
        actions,
        rounds: {
          kind,
          selector: '#more',
          items: itemSelector,
          maxPages,
          onPage: async (read) => {
            const found = items(read.html);
            reads.push(found);
            const fresh = found.filter((name) => !seen.has(name));
            for (const name of fresh) seen.add(name);
            return fresh.length > 0;
          },
        },
      },
    });
    return { reads, outcome: result.rounds, last: items(result.html) };
  }

  it('clicks "Load more" until the button is gone', async () => {
    const { reads, outcome, last } = await rounds('/actions/load-more.html?pages=3&size=3', 'loadMore', 10);
    expect(reads.map((read) => read.length)).toEqual([3, 6, 9]);
    expect(last).toEqual(ACTION_ITEMS.slice(0, 9));
    expect(outcome).toEqual({ pages: 3, stoppedBy: 'button-gone', partial: false });
  });

  it('stops at maxPages, the page as loaded counting as the first', async () => {
    const { reads, outcome } = await rounds('/actions/load-more.html?pages=5&size=3', 'loadMore', 2);
    expect(reads.map((read) => read.length)).toEqual([3, 6]);
    expect(outcome).toEqual({ pages: 2, stoppedBy: 'maxPages', partial: false });
  });

  localOnly('stops when a click changes nothing in the page', async () => {
    const { reads, outcome } = await rounds('/actions/load-more.html?pages=2&size=3&end=stay', 'loadMore', 10);
    expect(reads.map((read) => read.length)).toEqual([3, 6]);
    expect(outcome).toEqual({ pages: 2, stoppedBy: 'nothing-new', partial: false });
  });

  localOnly('stops when a round adds only items already read (the caller says so)', async () => {
    const { reads, outcome } = await rounds('/actions/load-more.html?pages=2&size=3&end=repeat', 'loadMore', 10);
    expect(reads.map((read) => read.length)).toEqual([3, 6, 9]);
    expect(outcome).toEqual({ pages: 3, stoppedBy: 'caller', partial: false });
  });

  it('waits for a slow "Load more" while the request it started is in flight, past the 2 s a quiet page gets', async () => {
    const { reads, outcome } = await rounds('/actions/load-more.html?pages=2&size=3&delay=2500', 'loadMore', 10);
    expect(reads.map((read) => read.length)).toEqual([3, 6]);
    expect(outcome).toEqual({ pages: 2, stoppedBy: 'button-gone', partial: false });
  });

  it('scrolls an endless list to its end', async () => {
    const { reads, outcome, last } = await rounds('/actions/scroll.html?pages=3&size=5', 'scroll', 10);
    expect(reads.map((read) => read.length)).toEqual([5, 10, 15]);
    expect(last).toEqual(ACTION_ITEMS.slice(0, 15));
    expect(outcome).toEqual({ pages: 3, stoppedBy: 'nothing-new', partial: false });
  });

  it('runs the actions before the rounds', async () => {
    const { reads } = await rounds('/actions/load-more.html?pages=2&size=3', 'loadMore', 10, scraper, [
      { click: '#more' },
      { wait: 'li.item:nth-child(6)' },
    ]);
    expect(reads.map((read) => read.length)).toEqual([6]);
  });

  it('ends at the time bound with the pages read so far, marked partial', async () => {
    const { reads, outcome } = await rounds('/actions/load-more.html?pages=5&size=3&delay=3000', 'loadMore', 10, short);
    expect(reads.map((read) => read.length)).toEqual([3]);
    expect(outcome).toEqual({ pages: 1, stoppedBy: 'time', partial: true });
  });

  localOnly('waits for the items of a button that says "Loading…" while it fetches, the same on every run', async () => {
    for (let run = 0; run < 2; run += 1) {
      const { reads, outcome, last } = await rounds(
        '/actions/load-more.html?pages=3&size=3&delay=700&label=1',
        'loadMore',
        10,
        scraper,
        undefined,
        'li.item',
      );
      expect(reads.map((read) => read.length)).toEqual([3, 6, 9]);
      expect(last).toEqual(ACTION_ITEMS.slice(0, 9));
      expect(outcome).toEqual({ pages: 3, stoppedBy: 'button-gone', partial: false });
    }
  });

  it("without the list's selector, waits for the requests a relabelled button started to end", async () => {
    const { reads, outcome } = await rounds('/actions/load-more.html?pages=3&size=3&delay=700&label=1', 'loadMore', 10);
    expect(reads.map((read) => read.length)).toEqual([3, 6, 9]);
    expect(outcome).toEqual({ pages: 3, stoppedBy: 'button-gone', partial: false });
  });

  localOnly('waits for the items of an endless list that shows a spinner while it fetches', async () => {
    const { reads, outcome, last } = await rounds(
      '/actions/scroll.html?pages=3&size=5&delay=700&spinner=1',
      'scroll',
      10,
      scraper,
      undefined,
      'li.item',
    );
    expect(reads.map((read) => read.length)).toEqual([5, 10, 15]);
    expect(last).toEqual(ACTION_ITEMS.slice(0, 15));
    expect(outcome).toEqual({ pages: 3, stoppedBy: 'nothing-new', partial: false });
  });

  localOnly('ends the rounds when the button stays disabled after its requests ended', async () => {
    const { reads, outcome } = await rounds(
      '/actions/load-more.html?pages=3&size=3&delay=700&label=1&end=disable',
      'loadMore',
      10,
      scraper,
      undefined,
      'li.item',
    );
    expect(reads.map((read) => read.length)).toEqual([3, 6, 9]);
    expect(outcome).toEqual({ pages: 3, stoppedBy: 'button-gone', partial: false });
  });
});
