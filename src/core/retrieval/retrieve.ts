import { resolveSourceUrl, type ApiConfig, type Field, type ScraperNumber } from '../config/index.js';
import { forgetJsonText, isPagejsonError, PagejsonError } from '../shared/index.js';
import { HEURISTIC_MODEL, type Model, type TokenUsage } from '../models/index.js';
import { scraperByNumber, type Scraper } from '../fetch/index.js';
import { createInProcessExtractor, dataJsonSchema, DEFAULT_DOCUMENT_LIMITS, getStructureOutline, type Extractor } from '../extract/index.js';
import { assessHealth, expectedData, type Health } from '../health/index.js';

/**
 * The retrieval pipeline, shared by the daemon and `pagejson run`: resolve the URL → fetch → compiled
 * extraction → model fields (only those without a selector, and never with `heuristic`) → emptiness check.
 * No credits, no cache, no HTTP here: the callers wrap it.
 */
export interface RetrieveDeps {
  scraperFor(number: ScraperNumber): Scraper;
  /** Absent: model fields stay null (as with `heuristic`). */
  modelFor?(name: string): Promise<Model>;
  /** Where pages are parsed and selected (the daemon: a worker pool with a budget). Default: in-process. */
  extractor?: Extractor;
}

const inProcess = createInProcessExtractor({ limits: DEFAULT_DOCUMENT_LIMITS });

export interface RetrieveOptions {
  signal?: AbortSignal;
  /** Use this scraper instead of the config's, for one retrieval (`pagejson run --scraper`). */
  scraper?: ScraperNumber;
  /** What the config is known to extract (a snapshot's data); default: its `generated.sample`. */
  expected?: unknown;
  /**
   * The caller never reads the result's `html`: the page's bytes may move to the extraction thread instead of
   * being copied there (the daemon). Reading `html` afterwards is an error.
   */
  handOverPage?: boolean;
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
}

export const EXTRACTION_EMPTY_MESSAGE = 'no data could be extracted from the source page';

export async function retrieve(config: ApiConfig, values: Record<string, unknown>, deps: RetrieveDeps, options: RetrieveOptions = {}): Promise<RetrieveResult> {
  const sourceUrl = resolveSourceUrl(config, values);
  const scraperNumber = options.scraper ?? config.scraper;
  // Session is a scraper-1 feature (SPEC 2.2); a one-off override to another scraper simply fetches without it.
  const session = config.session && scraperByNumber(scraperNumber).supportsSession;
  const page = await deps.scraperFor(scraperNumber).fetch({ url: sourceUrl, session, ...(options.signal ? { signal: options.signal } : {}) });
  const fetchedAt = new Date();

  // Only what the structure says (model fields, emptiness) is needed here: the page is parsed and selected by
  // the extractor, which compiles the selectors (off the event loop in the daemon).
  const outline = getStructureOutline(config.structure);
  // Fields inside array items have one value per item and no single place in the page to describe; they stay
  // null. The rest go to the model in one call, keyed by their path so that equal names at two levels differ.
  const modelFields = outline.modelFields.filter((entry) => !entry.inArray);
  const fillsModelFields = modelFields.length > 0 && deps.modelFor !== undefined && config.model !== HEURISTIC_MODEL;
  const extraction = await (deps.extractor ?? inProcess).extract(
    {
      config: { apiId: config.apiId, revision: config.revision, selector: config.selector, structure: config.structure },
      ...(page.body ? { body: page.body } : { html: page.html }),
      finalUrl: page.finalUrl,
      wantSection: fillsModelFields,
      // Model fields may fall back to the whole page's text below: then the bytes stay here.
      handOver: options.handOverPage === true && !fillsModelFields,
    },
    options.signal,
  );
  const data = extraction.data;
  let assessment: { empty: boolean; missingRequired: string[] } = extraction;
  let usage: TokenUsage | undefined;

  if (fillsModelFields && deps.modelFor) {
    // The data changes below: JSON text made for it before (by an extraction thread) no longer holds.
    forgetJsonText(data);
    const keyed = modelFields.map((entry) => ({ key: entry.path.replace(/\./g, '__'), entry }));
    const { values: filled, usage: spent } = await fillModelFields(config, keyed.map(({ key, entry }) => ({ ...entry.field, name: key })), extraction.sectionHtml ?? page.html, page.finalUrl, deps.modelFor, options.signal);
    for (const { key, entry } of keyed) {
      if (Object.hasOwn(filled, key) && filled[key] !== undefined) setAtPath(data, entry.path, filled[key]);
    }
    assessment = outline.assess(data);
    usage = spent;
  }

  if (assessment.empty || assessment.missingRequired.length > 0) {
    const { missingRequired } = assessment;
    throw new PagejsonError('EXTRACTION_EMPTY', EXTRACTION_EMPTY_MESSAGE, {
      context: { apiId: config.apiId, sourceUrl, finalUrl: page.finalUrl, missingRequired },
      hint:
        missingRequired.length > 0
          ? `required field(s) ${missingRequired.join(', ')} came out empty: check their selectors with \`pagejson show ${config.apiId}\` and \`pagejson edit ${config.apiId}\``
          : `no selector matched: the page may have changed or need another scraper (compare with \`pagejson run ${config.apiId} --scraper 3\`)`,
    });
  }
  const health = assessHealth(config.structure, data, options.expected ?? expectedData(config));
  // The page's text is decoded only if a caller reads it (a snapshot does; the daemon does not).
  return Object.defineProperty({ data, sourceUrl, finalUrl: page.finalUrl, fetchedAt, health, ...(usage ? { usage } : {}) }, 'html', { enumerable: true, get: () => page.html }) as RetrieveResult;
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
