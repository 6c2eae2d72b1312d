import { pageUrl, paginationKind, type ApiConfig, type PaginationSettings } from '../config/index.js';
import { isPagejsonError } from '../shared/index.js';
import { mergePages, paginationListField, type PageMerge } from '../extract/index.js';

/**
 * The page loop of `pagination.next` and `pagination.variable` (docs/pagination.md), around the page
 * pipeline's fetch + extract: each further page is a normal fetch (the per-origin queue, the address guard,
 * the scraper's deadline) and a normal extraction, and its items are merged into the first page's list.
 *
 * Stops, in words (`PageStop`): no next link, a page that adds nothing new, a URL already seen (loops), an
 * empty page, maxPages, maxItems, the end of the list (HTTP 404 or 410 past the first page), a next link
 * leaving the site, the retrieval's time budget, or a later page that failed. The last two answer with the
 * pages so far and say the answer is partial (`time`, `error`); such answers are not cached.
 *
 * `variable` pages do not depend on one another: they are fetched ahead, up to `concurrency` at a time (the
 * per-origin queue still bounds them), and taken in order. `next` pages cannot be: each address is on the
 * page before.
 */
export type PageStop = 'no-next' | 'nothing-new' | 'seen' | 'empty' | 'max-pages' | 'max-items' | 'end' | 'off-site' | 'time' | 'error';
export type PartialReason = 'time' | 'error';

/** One page through fetch + extract. */
export interface PageRun {
  data: Record<string, unknown>;
  /** The address after redirects. */
  finalUrl: string;
  /** pagination.next: the next page's address on this page (null: none). */
  nextHref?: string | null | undefined;
}

export interface HeldPage<P extends PageRun> {
  /** The address asked for. */
  url: string;
  page: P;
}

export interface PagesOutcome<P extends PageRun> {
  /** The first page's data, its list holding every page's items. */
  data: Record<string, unknown>;
  /** The pages whose items the answer holds (the first always counts): what the answer costs. */
  pages: number;
  /** Those pages in order, the first included (a snapshot keeps them). */
  held: Array<HeldPage<P>>;
  stop: PageStop;
  partial?: PartialReason;
}

export interface PaginateOptions {
  /** Ends the loop when it aborts: the pages so far are the answer, partial (`time`). */
  budget?: AbortSignal | undefined;
  /** The request's own signal: when it aborts, the loop throws. */
  signal?: AbortSignal | undefined;
  /** `variable` pages fetched at once (default 4, the per-origin queue's default). */
  concurrency?: number | undefined;
}

/** Fetches and extracts one further page; `signal` aborts it (a stop, the budget). */
export type LoadPage<P extends PageRun> = (url: string, signal: AbortSignal) => Promise<P>;

type Pagination = PaginationSettings;

/** What a further page's failure means: the end of the list, the budget, or a failure (partial). */
function stopOnFailure(error: unknown, budget: AbortSignal | undefined, signal: AbortSignal | undefined): PageStop {
  if (signal?.aborted) throw error;
  if (budget?.aborted) return 'time';
  if (isPagejsonError(error) && error.code === 'FETCH_STATUS' && [404, 410].includes(Number(error.context.status))) return 'end';
  return 'error';
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The loop's shared state: the merge, the pages held, the addresses seen, and how it ended. */
class PageLoop<P extends PageRun> {
  readonly merge: PageMerge;
  readonly held: Array<HeldPage<P>>;
  readonly seen = new Set<string>();
  fetched = 1;

  constructor(
    readonly pagination: Pagination,
    list: string,
    first: HeldPage<P>,
  ) {
    this.merge = mergePages(first.page.data, { list, key: pagination.key, maxItems: pagination.maxItems });
    this.held = [first];
    this.seen.add(first.url).add(first.page.finalUrl);
  }

  /** Before fetching another page: a reason to stop, or undefined. */
  limit(budget: AbortSignal | undefined): PageStop | undefined {
    if (this.merge.full) return 'max-items';
    if (budget?.aborted) return 'time';
    return this.fetched >= this.pagination.maxPages ? 'max-pages' : undefined;
  }

  /** A further page, fetched: taken (undefined) or the reason it ends the loop. */
  take(url: string, page: P, list: string): PageStop | undefined {
    // Judged where it landed, not by its link: a page of the site that redirects elsewhere is no page of this list (issue 45).
    if (originOf(page.finalUrl) !== originOf(this.held[0]!.page.finalUrl)) return 'off-site';
    if (page.finalUrl !== url && this.seen.has(page.finalUrl)) return 'seen';
    this.seen.add(page.finalUrl);
    const items = Object.hasOwn(page.data, list) ? page.data[list] : undefined;
    if (!Array.isArray(items) || items.length === 0) return 'empty';
    if (this.merge.add(page.data) === 0) return 'nothing-new';
    this.held.push({ url, page });
    return undefined;
  }

  outcome(stop: PageStop): PagesOutcome<P> {
    const partial: PartialReason | undefined = stop === 'time' || stop === 'error' ? stop : undefined;
    return { data: this.merge.data, pages: this.held.length, held: this.held, stop, ...(partial ? { partial } : {}) };
  }
}

/** `pagination.next`: the next link of each page, one page after the other, on the first page's site. */
async function followNext<P extends PageRun>(
  loop: PageLoop<P>,
  list: string,
  load: LoadPage<P>,
  options: PaginateOptions,
): Promise<PageStop> {
  const site = new URL(loop.held[0]!.page.finalUrl).origin;
  for (let current = loop.held[0]!.page; ;) {
    const limit = loop.limit(options.budget);
    if (limit) return limit;
    const href = current.nextHref;
    if (!href) return 'no-next';
    if (loop.seen.has(href)) return 'seen';
    // A pager links within its site; an address elsewhere is no next page of this list (and no way out of it).
    if (new URL(href).origin !== site) return 'off-site';
    loop.seen.add(href);
    loop.fetched += 1;
    const stops = new AbortController();
    const unlink = linkAborts(stops, options.budget, options.signal);
    let page: P;
    try {
      page = await load(href, stops.signal);
    } catch (error) {
      return stopOnFailure(error, options.budget, options.signal);
    } finally {
      unlink();
    }
    const stop = loop.take(href, page, list);
    if (stop) return stop;
    current = page;
  }
}

/** `pagination.variable`: the page variable counted up, pages fetched ahead up to `concurrency`, taken in order. */
async function countPages<P extends PageRun>(
  loop: PageLoop<P>,
  config: ApiConfig,
  values: Record<string, unknown>,
  list: string,
  load: LoadPage<P>,
  options: PaginateOptions,
): Promise<PageStop> {
  const pagination = loop.pagination;
  const urls = Array.from({ length: pagination.maxPages - 1 }, (_, index) => pageUrl(config, values, index + 1));
  const stops = new AbortController();
  const unlink = linkAborts(stops, options.budget, options.signal);
  const window = Math.max(1, options.concurrency ?? 4);
  const started: Array<Promise<{ page: P } | { error: unknown }>> = [];
  const startUpTo = (index: number) => {
    for (let next = started.length; next < Math.min(urls.length, index + window); next += 1) {
      started.push(
        load(urls[next]!, stops.signal).then(
          (page) => ({ page }),
          (error: unknown) => ({ error }),
        ),
      );
    }
  };
  try {
    for (let index = 0; index < urls.length; index += 1) {
      const limit = loop.limit(options.budget);
      if (limit) return limit;
      if (loop.seen.has(urls[index]!)) return 'seen';
      startUpTo(index);
      loop.fetched += 1;
      const result = await started[index]!;
      if ('error' in result) return stopOnFailure(result.error, options.budget, options.signal);
      loop.seen.add(urls[index]!);
      const stop = loop.take(urls[index]!, result.page, list);
      if (stop) return stop;
    }
    return loop.limit(options.budget) ?? 'max-pages';
  } finally {
    // Pages fetched ahead past the stop are not wanted: their fetches end, their failures are nobody's.
    stops.abort();
    unlink();
  }
}

/**
 * The whole retrieval's time budget (one deadline, docs/pagination.md): started before the first page, it ends
 * the loop and the page in flight; the pages before are the answer, partial. A timer (fake timers drive it in
 * tests). No budget: never ends.
 */
export function pageBudget(ms: number | undefined): { signal: AbortSignal | undefined; dispose(): void } {
  if (ms === undefined) return { signal: undefined, dispose: () => undefined };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  timer.unref?.();
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}

/** Aborts `controller` when either signal does; returns the undo. */
function linkAborts(controller: AbortController, ...signals: Array<AbortSignal | undefined>): () => void {
  const abort = () => controller.abort();
  const linked = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  for (const signal of linked) {
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  }
  return () => {
    for (const signal of linked) signal.removeEventListener('abort', abort);
  };
}

/**
 * The further pages of a `next` or `variable` pagination after the first (already fetched and extracted),
 * merged into its data. Configs without pagination, or with a browser kind (rounds inside one page load,
 * scraper 3), get the first page as it is.
 */
export async function paginate<P extends PageRun>(
  config: ApiConfig,
  values: Record<string, unknown>,
  first: HeldPage<P>,
  load: LoadPage<P>,
  options: PaginateOptions = {},
): Promise<PagesOutcome<P>> {
  const pagination = config.pagination;
  const list = pagination ? paginationListField(config.structure, pagination) : undefined;
  const kind = pagination ? paginationKind(pagination) : undefined;
  if (!pagination || list === undefined || (kind !== 'next' && kind !== 'variable'))
    return { data: first.page.data, pages: 1, held: [first], stop: 'max-pages' };
  const loop = new PageLoop(pagination, list, first);
  const stop = kind === 'next' ? await followNext(loop, list, load, options) : await countPages(loop, config, values, list, load, options);
  return loop.outcome(stop);
}
