import { resolveSourceUrl, type ApiConfig, type Field, type ScraperNumber } from '../config/index.js';
import { forgetJsonText, isPagejsonError, PagejsonError, wireText } from '../shared/index.js';
import { HEURISTIC_MODEL, type Model, type TokenUsage } from '../models/index.js';
import { accessOf, loginOf, scraperByNumber, type FetchResult, type PageCharset, type Scraper } from '../fetch/index.js';
import {
  createInProcessExtractor,
  dataJsonSchema,
  DEFAULT_DOCUMENT_LIMITS,
  getStructureOutline,
  webUrlsOnly,
  type Extractor,
} from '../extract/index.js';
import { baselineFor, headersFrom, headerStructure, judgeConfig, type HeaderStructure, type Health } from '../health/index.js';
import type { HealthBaseline } from '../state/index.js';
import { pageBudget, paginate, type PagesOutcome, type PartialReason } from './paginate.js';
import { browserStepsOf, takeRounds, type RoundsCollector } from './browser-rounds.js';

/**
 * The page pipeline, shared by the daemon (as the `load` stage, stages/answer.ts) and `pagejson run`, as named
 * steps over one page context: fetch → classify → extract → fill → assess. The URL is resolved by the caller's
 * `locate` stage when there is one (options.sourceUrl), else here. No credits, no cache, no HTTP here: the
 * callers wrap it.
 */
export interface RetrieveDeps {
  scraperFor(number: ScraperNumber): Scraper;
  /** Absent: model fields stay null (as with `heuristic`). */
  modelFor?(name: string): Promise<Model>;
  /** Where pages are parsed and selected (the daemon: a worker pool with a budget). Default: in-process. */
  extractor?: Extractor;
  /** Paginated configs (paginate.ts): the whole retrieval's time budget (fetch.timeoutMs) and pages fetched at once. */
  pages?: { budgetMs: number; concurrency: number };
}

const inProcess = createInProcessExtractor({ limits: DEFAULT_DOCUMENT_LIMITS });

export interface RetrieveOptions {
  signal?: AbortSignal;
  /** Use this scraper instead of the config's, for one retrieval (`pagejson run --scraper`). */
  scraper?: ScraperNumber;
  /**
   * What good data of each field looks like (the endpoint's stored baseline, or one learned from its snapshots):
   * the health is judged against it (health/field-health.ts). Default: learned from `generated.sample`.
   */
  baseline?: HealthBaseline;
  /**
   * The caller never reads the result's `html`: the page's bytes may move to the extraction thread instead of
   * being copied there (the daemon). Reading `html` afterwards is an error.
   */
  handOverPage?: boolean;
  /** The source URL, already resolved from the values by the caller (the daemon's `locate` stage). */
  sourceUrl?: string;
}

export interface RetrieveResult {
  data: Record<string, unknown>;
  sourceUrl: string;
  finalUrl: string;
  fetchedAt: Date;
  /** Tokens the model spent filling model fields (absent when no model call happened or it reported none). */
  usage?: TokenUsage;
  /** Field by field, how the data compares with what the config expects (drift). */
  health: Health;
  /** The page as fetched (decoded): what `pagejson snapshot` keeps as evidence. */
  readonly html: string;
  /** Table columns: the header each is read under on the first page (health/table-headers.ts). */
  headers?: Record<string, string>;
  /** A paginated config: the pages whose items the data holds (credits are per page, docs/pagination.md). */
  pages?: number;
  /** The time budget or a failed page cut the pages short: the data holds the pages before. */
  partial?: PartialReason;
  /** The pages after the first whose items the data holds, in order (a snapshot keeps them). */
  morePages?: ReadonlyArray<{ url: string; finalUrl: string; readonly html: string }>;
  /** The page declared no charset and its encoding was guessed from its bytes (a fetch detail `run` shows). */
  charset?: PageCharset;
}

export const EXTRACTION_EMPTY_MESSAGE = wireText('EXTRACTION_EMPTY');

type StructureOutline = ReturnType<typeof getStructureOutline>;

/** One page on its way through the steps; each step fills its fields. */
interface PageContext {
  readonly config: ApiConfig;
  readonly deps: RetrieveDeps;
  readonly options: RetrieveOptions;
  readonly sourceUrl: string;
  /** The request's variable values (actions fill their text from them). */
  readonly values: Record<string, unknown>;
  page: FetchResult;
  /** The page's address after redirects. */
  finalUrl: string;
  fetchedAt: Date;
  /** classify: the structure's outline, and the model fields (outside array items) the model fills. */
  outline: StructureOutline;
  modelFields: StructureOutline['modelFields'];
  fillsModelFields: boolean;
  data: Record<string, unknown>;
  sectionHtml: string | undefined;
  assessment: { empty: boolean; missingRequired: string[] };
  usage: TokenUsage | undefined;
  /** pagination.next: the next page's address on this page. */
  nextHref: string | null | undefined;
  /** paginate: the pages merged into `data`. */
  paged: PagesOutcome<PageContext> | undefined;
  /** pagination.loadMore/scroll: the browser's rounds, extracted and merged as they came (browser-rounds.ts). */
  rounds?: RoundsCollector | undefined;
  /** Table columns' headers to read (classify), and what they were (headers). */
  headerFields: HeaderStructure | undefined;
  headers?: Record<string, string>;
}

/** fetch: the page, with the config's scraper or the one asked for (session only where the scraper has one). */
async function fetchStep(page: PageContext): Promise<void> {
  const { config, options } = page;
  const scraperNumber = options.scraper ?? config.scraper;
  // Session is a scraper-1 feature; a one-off override to another scraper simply fetches without it.
  const session = config.session && scraperByNumber(scraperNumber).supportsSession;
  page.page = await page.deps.scraperFor(scraperNumber).fetch({
    url: page.sourceUrl,
    session,
    ...accessOf(config),
    ...loginOf(config),
    ...(options.signal ? { signal: options.signal } : {}),
    ...browserStepsOf(page, page.deps.extractor ?? inProcess),
  });
  page.finalUrl = page.page.finalUrl;
  page.fetchedAt = new Date();
}

/**
 * classify: what the structure asks of this page beyond selecting: which fields the model fills (those inside
 * array items have one value per item and no single place in the page to describe: they stay null), and so
 * whether the extraction must send the section back.
 */
function classifyStep(page: PageContext): void {
  page.outline = getStructureOutline(page.config.structure);
  page.modelFields = page.outline.modelFields.filter((entry) => !entry.inArray);
  page.fillsModelFields = page.modelFields.length > 0 && page.deps.modelFor !== undefined && page.config.model !== HEURISTIC_MODEL;
  page.headerFields = headerStructure(page.config.structure);
}

/** extract: the compiled selectors, by the extractor (off the event loop in the daemon). */
async function extractStep(page: PageContext): Promise<void> {
  if (takeRounds(page)) return;
  const { config, options } = page;
  const fetched = page.page;
  const extraction = await (page.deps.extractor ?? inProcess).extract(
    {
      config: { apiId: config.apiId, revision: config.revision, selector: config.selector, structure: config.structure },
      ...(fetched.body ? { body: fetched.body } : { html: fetched.html }),
      finalUrl: fetched.finalUrl,
      wantSection: page.fillsModelFields,
      // Model fields may fall back to the whole page's text below: then the bytes stay here.
      // Model fields may fall back to the page's text, table headers are read from it next: then the bytes stay.
      handOver: options.handOverPage === true && !page.fillsModelFields && page.headerFields === undefined,
      ...(config.pagination?.next !== undefined ? { nextLink: config.pagination.next } : {}),
    },
    options.signal,
  );
  page.data = extraction.data;
  page.sectionHtml = extraction.sectionHtml;
  page.assessment = extraction;
  page.nextHref = extraction.nextHref;
}

/**
 * headers: the header each table column is read under, by a second small extraction of the first page (the
 * health judgement compares it with the one the column was read under before). Never fails the retrieval.
 */
async function headersStep(page: PageContext): Promise<void> {
  const found = page.headerFields;
  if (!found || page.rounds) return;
  const { config } = page;
  const fetched = page.page;
  try {
    const extraction = await (page.deps.extractor ?? inProcess).extract(
      {
        // Its own key: the extractor keeps compiled structures per apiId and revision.
        config: { apiId: `${config.apiId}~headers`, revision: config.revision, selector: config.selector, structure: found.structure },
        ...(fetched.body ? { body: fetched.body } : { html: fetched.html }),
        finalUrl: fetched.finalUrl,
        wantSection: false,
        handOver: false,
      },
      page.options.signal,
    );
    page.headers = headersFrom(found, extraction.data);
  } catch {
    // Without headers the columns are judged on their values only.
  }
}

/**
 * paginate: the further pages of a `next` or `variable` pagination, each through fetch and extract like the
 * first, merged into its data (paginate.ts), within one time budget for the whole retrieval.
 */
async function paginateStep(page: PageContext, values: Record<string, unknown>, budget: AbortSignal | undefined): Promise<void> {
  const { config, deps } = page;
  const load = async (url: string, signal: AbortSignal): Promise<PageContext> => {
    const next = { ...page, sourceUrl: url, fillsModelFields: false, options: { ...page.options, signal } } as PageContext;
    await fetchStep(next);
    await extractStep(next);
    // Up to maxPages pages are held until the answer is made: a caller that never reads their text (the daemon)
    // keeps none of it (scraper 3's pages are text, not bytes handed to the extraction thread).
    if (page.options.handOverPage) next.page = withoutText(next.page);
    return next;
  };
  const paged = await paginate(config, values, { url: page.sourceUrl, page }, load, {
    budget,
    signal: page.options.signal,
    concurrency: deps.pages?.concurrency,
  });
  // The merged data is a new object (its list cut and without duplicates even for one page).
  page.paged = paged;
  page.data = paged.data;
  page.assessment = page.outline.assess(paged.data);
}

/** fill: the model fields, in one call keyed by their path (equal names at two levels differ). */
async function fillStep(page: PageContext): Promise<void> {
  const modelFor = page.deps.modelFor;
  if (!page.fillsModelFields || !modelFor) return;
  const data = page.data;
  // The data changes below: JSON text made for it before (by an extraction thread) no longer holds.
  forgetJsonText(data);
  const keyed = page.modelFields.map((entry) => ({ key: entry.path.replace(/\./g, '__'), entry }));
  const fields = keyed.map(({ key, entry }) => ({ ...entry.field, name: key }));
  const { values: filled, usage } = await fillModelFields(
    page.config,
    fields,
    page.sectionHtml ?? page.page.html,
    page.page.finalUrl,
    modelFor,
    page.options.signal,
  );
  // A model reads the page: its `url` values are held to the rule page values are (only http(s) URLs).
  for (const { key, entry } of keyed) {
    if (Object.hasOwn(filled, key) && filled[key] !== undefined)
      setAtPath(data, entry.path, webUrlsOnly(entry.field, filled[key], page.page.finalUrl));
  }
  page.assessment = page.outline.assess(data);
  page.usage = usage;
}

/**
 * assess: nothing (or a required field missing) is a failure, EXTRACTION_EMPTY; else the data is judged against
 * the endpoint's baseline, and a broken judgement (a required field's data gone or changed) fails the same way.
 */
function assessStep(page: PageContext): Health {
  const { config, assessment } = page;
  const failure = (missingRequired: string[], findings: string[], hint: string) =>
    new PagejsonError('EXTRACTION_EMPTY', EXTRACTION_EMPTY_MESSAGE, {
      context: { apiId: config.apiId, sourceUrl: page.sourceUrl, finalUrl: page.page.finalUrl, missingRequired, findings },
      hint,
    });
  if (assessment.empty || assessment.missingRequired.length > 0) {
    const { missingRequired } = assessment;
    throw failure(
      missingRequired,
      missingRequired.map((path) => `${path}: empty (a required field)`),
      missingRequired.length > 0
        ? `required field(s) ${missingRequired.join(', ')} came out empty: check their selectors with \`pagejson show ${config.apiId}\` and \`pagejson edit ${config.apiId}\``
        : `no selector matched: the page may have changed or need another scraper (compare with \`pagejson run ${config.apiId} --scraper 3\`)`,
    );
  }
  // A paginated read says how many pages it took (a read that stopped early is a finding: health/list-read.ts).
  const read = config.pagination ? { pages: page.paged?.pages ?? 1, partial: page.paged?.partial } : undefined;
  const health = judgeConfig(config, page.data, page.options.baseline ?? baselineFor(config, undefined), page.headers, read);
  if (health.state === 'broken')
    throw failure(
      health.failing,
      health.findings,
      `${health.findings.join('; ')}: the page may have changed; \`pagejson heal ${config.apiId}\` repairs the selectors`,
    );
  return health;
}

export async function retrieve(
  config: ApiConfig,
  values: Record<string, unknown>,
  deps: RetrieveDeps,
  options: RetrieveOptions = {},
): Promise<RetrieveResult> {
  const page = { config, deps, options, values, sourceUrl: options.sourceUrl ?? resolveSourceUrl(config, values) } as PageContext;
  const budget = config.pagination ? pageBudget(deps.pages?.budgetMs) : undefined;
  try {
    await fetchStep(page);
    classifyStep(page);
    await extractStep(page);
    await headersStep(page);
    if (config.pagination && !page.rounds) await paginateStep(page, values, budget?.signal);
  } finally {
    budget?.dispose();
  }
  await fillStep(page);
  const health = assessStep(page);
  const fetched = page.page;
  const result = {
    data: page.data,
    sourceUrl: page.sourceUrl,
    finalUrl: fetched.finalUrl,
    fetchedAt: page.fetchedAt,
    health,
    ...(page.headers ? { headers: page.headers } : {}),
    ...(page.usage ? { usage: page.usage } : {}),
    ...(fetched.charset ? { charset: fetched.charset } : {}),
    ...pagesOf(config, page.paged),
  };
  // The page's text is decoded only if a caller reads it (a snapshot does; the daemon does not).
  return Object.defineProperty(result, 'html', { enumerable: true, get: () => fetched.html }) as RetrieveResult;
}

async function fillModelFields(
  config: ApiConfig,
  fields: Field[],
  sectionHtml: string,
  pageUrl: string,
  modelFor: (name: string) => Promise<Model>,
  signal: AbortSignal | undefined,
): Promise<{ values: Record<string, unknown>; usage: TokenUsage | undefined }> {
  signal?.throwIfAborted();
  const model = await modelFor(config.model);
  try {
    const output = await model.fill({ sectionHtml, pageUrl, fields, jsonSchema: dataJsonSchema(fields), rule: config.rule });
    return { values: output.values ?? {}, usage: output.usage };
  } catch (error) {
    if (isPagejsonError(error)) throw error;
    throw new PagejsonError('MODEL_FAILED', `model "${config.model}" could not fill the model fields: ${(error as Error).message}`, {
      context: { apiId: config.apiId, model: config.model },
      hint: 'check the model settings in pagejson.json, or give the fields selectors with `pagejson edit`',
      cause: error,
    });
  }
}

/** A fetched page whose text is let go: reading it is a mistake of the caller that said it would not. */
function withoutText(fetched: FetchResult): FetchResult {
  const { finalUrl, status, headers } = fetched;
  return {
    finalUrl,
    status,
    headers,
    get html(): string {
      throw new Error('the page was handed over (handOverPage): its text is not kept');
    },
  };
}

/** What the result says of a paginated config's pages: how many, whether cut short, and the pages after the first. */
function pagesOf(config: ApiConfig, paged: PagesOutcome<PageContext> | undefined): Pick<RetrieveResult, 'pages' | 'partial' | 'morePages'> {
  if (!config.pagination) return {};
  if (!paged) return { pages: 1, morePages: [] };
  const morePages = paged.held.slice(1).map(({ url, page }) => ({
    url,
    finalUrl: page.finalUrl,
    get html() {
      return page.page.html;
    },
  }));
  return { pages: paged.pages, morePages, ...(paged.partial ? { partial: paged.partial } : {}) };
}

/** Sets `a.b.c`, creating plain objects on the way: model fields may sit inside selector-less objects. */
function setAtPath(data: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let record = data;
  for (const key of keys.slice(0, -1)) {
    const next = record[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created: Record<string, unknown> = {};
      Object.defineProperty(record, key, { value: created, enumerable: true, writable: true, configurable: true });
      record = created;
    } else record = next as Record<string, unknown>;
  }
  Object.defineProperty(record, keys[keys.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
}
