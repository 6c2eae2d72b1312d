import { paginationKind, type ApiConfig, type ScraperNumber } from '../config/index.js';
import { mergePages, paginationListField, type Extractor, type PageMerge } from '../extract/index.js';
import type { FetchResult, PageRounds, PageSteps, RoundsStop } from '../fetch/index.js';
import { PagejsonError } from '../shared/index.js';
import type { PageStop, PagesOutcome } from './paginate.js';

/**
 * The page pipeline's side of scraper 3's steps (docs/actions.md): what a fetch of a config asks the browser to
 * do (its `actions`, filled with the request's values as each step runs; its `pagination.loadMore` or
 * `pagination.scroll` rounds), and the rounds' reads extracted and merged as they come, with the merge every
 * pagination uses (extract/page-merge.ts), so that "nothing new" and `maxItems` end the rounds in the browser.
 * The result is a PagesOutcome like the page loop's (paginate.ts): pages held, why it stopped, partial or not.
 */

/** What a fetch's steps are built from: the config, the request's values, the scraper it runs on. */
export interface StepsSource {
  readonly config: ApiConfig;
  readonly values: Record<string, unknown>;
  readonly options: { scraper?: ScraperNumber | undefined; signal?: AbortSignal | undefined };
  /** Set here when the fetch has rounds: their reads, extracted and merged. */
  rounds?: RoundsCollector | undefined;
}

type ListStop = 'empty' | 'nothing-new' | 'max-items';

export class RoundsCollector {
  readonly reads: FetchResult[] = [];
  merge: PageMerge | undefined;
  /** Why the caller's side ended the rounds, if it did. */
  stop: ListStop | undefined;
  partial = false;

  constructor(
    private readonly config: ApiConfig,
    private readonly list: string,
    private readonly extract: (read: FetchResult) => Promise<Record<string, unknown>>,
  ) {}

  /** One read of the page: extracted, merged; whether the browser should go on. */
  async take(read: FetchResult): Promise<boolean> {
    const data = await this.extract(read);
    const pagination = this.config.pagination!;
    if (!this.merge) {
      this.merge = mergePages(data, { list: this.list, key: pagination.key, maxItems: pagination.maxItems });
      this.reads.push(read);
      return this.goOn();
    }
    const items = Object.hasOwn(data, this.list) ? data[this.list] : undefined;
    if (!Array.isArray(items) || items.length === 0) return this.end('empty');
    if (this.merge.add(data) === 0) return this.end('nothing-new');
    this.reads.push(read);
    return this.goOn();
  }

  private goOn(): boolean {
    return this.merge!.full ? this.end('max-items') : true;
  }

  private end(stop: ListStop): false {
    this.stop = stop;
    return false;
  }
}

/** The browser's reasons in the page loop's words (paginate.ts's PageStop). */
const BROWSER_STOPS: { readonly [K in RoundsStop]: PageStop } = {
  caller: 'nothing-new',
  maxPages: 'max-pages',
  'button-gone': 'no-next',
  'nothing-new': 'nothing-new',
  time: 'time',
};

function roundsOf(source: StepsSource, extractor: Extractor): PageRounds | undefined {
  const { config } = source;
  const pagination = config.pagination;
  const kind = pagination ? paginationKind(pagination) : undefined;
  if (!pagination || (kind !== 'loadMore' && kind !== 'scroll')) return undefined;
  const list = paginationListField(config.structure, pagination);
  if (list === undefined) return undefined;
  const extract = async (read: FetchResult): Promise<Record<string, unknown>> =>
    (
      await extractor.extract(
        {
          config: { apiId: config.apiId, revision: config.revision, selector: config.selector, structure: config.structure },
          html: read.html,
          finalUrl: read.finalUrl,
          wantSection: false,
        },
        source.options.signal,
      )
    ).data;
  const collector = new RoundsCollector(config, list, extract);
  source.rounds = collector;
  // The list's items as the browser counts them: a round waits for their number to grow (fetch/scrapers/browser-rounds.ts).
  const items = config.structure.find((field) => field.name === list)?.selector;
  return { kind, selector: pagination.loadMore, items, maxPages: pagination.maxPages, onPage: (read) => collector.take(read) };
}

/**
 * The `steps` of a fetch of this config, to spread into the fetch request: none for a config without actions
 * or browser rounds. Actions run on every page a pagination fetches (next, variable); rounds are the
 * loadMore and scroll kinds, which fetch one page.
 */
export function browserStepsOf(source: StepsSource, extractor: Extractor): { steps?: PageSteps } {
  const { config } = source;
  const actions = config.actions && config.actions.length > 0 ? config.actions : undefined;
  const rounds = roundsOf(source, extractor);
  if (!actions && !rounds) return {};
  const scraper = source.options.scraper ?? config.scraper;
  if (scraper !== 3) {
    throw new PagejsonError(
      'USAGE',
      `${actions ? 'actions' : `pagination.${paginationKind(config.pagination!)}`} need scraper 3 (the browser), not scraper ${scraper}`,
      {
        hint: 'run it with scraper 3 (`--scraper 3`), or remove the steps from the config to compare scrapers',
      },
    );
  }
  return { steps: { actions, values: source.values, rounds } };
}

/** The rounds' reads as the page loop's outcome: their data merged, the pages held, why they stopped. */
export function roundsOutcome<P>(
  collector: RoundsCollector,
  last: FetchResult,
  wrap: (read: FetchResult) => P,
): PagesOutcome<P & { data: Record<string, unknown>; finalUrl: string }> {
  const outcome = last.rounds;
  const stop: PageStop = collector.stop ?? BROWSER_STOPS[outcome?.stoppedBy ?? 'maxPages'];
  const partial = outcome?.partial === true && collector.stop === undefined;
  const data = collector.merge?.data ?? {};
  const held = collector.reads.map((read) => ({ url: read.finalUrl, page: { ...wrap(read), data, finalUrl: read.finalUrl } }));
  return { data, pages: held.length, held, stop, ...(partial ? { partial: 'time' as const } : {}) };
}

/** The page pipeline's context, as far as the rounds fill it in (retrieve.ts's PageContext). */
export interface RoundsTarget {
  rounds?: RoundsCollector | undefined;
  page: FetchResult;
  data: Record<string, unknown>;
  sectionHtml: string | undefined;
  assessment: { empty: boolean; missingRequired: string[] };
  outline: { assess(data: Record<string, unknown>): { empty: boolean; missingRequired: string[] } };
  finalUrl: string;
}

/**
 * extract, for a fetch that ran rounds: its reads were extracted as they came, so the data is their merge.
 * False when the fetch had no rounds (the page is extracted as usual).
 */
export function takeRounds<T extends RoundsTarget>(page: T & { paged: PagesOutcome<T> | undefined }): boolean {
  const collector = page.rounds;
  if (!collector) return false;
  const paged = roundsOutcome(collector, page.page, (read: FetchResult): T => ({ ...page, page: read }));
  page.paged = paged;
  page.data = paged.data;
  page.sectionHtml = undefined;
  page.assessment = page.outline.assess(paged.data);
  return true;
}
