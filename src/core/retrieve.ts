import type { ApiConfig, Field, ScraperNumber } from './config/schema.js';
import { resolveSourceUrl } from './config/url-template.js';
import { isPagejsonError, PagejsonError } from './errors.js';
import type { Model } from './models/types.js';
import { scraperByNumber, type Scraper } from './scrapers/types.js';
import { dataJsonSchema, getCompiledStructure, selectSection } from './structure/index.js';

/**
 * The retrieval pipeline, shared by the daemon and `pagejson run`: resolve the URL → fetch → compiled
 * extraction → model fields (only those without a selector, and never with `heuristic`) → emptiness check.
 * No credits, no cache, no HTTP here: the callers wrap it.
 */
export interface RetrieveDeps {
  scraperFor(number: ScraperNumber): Scraper;
  /** Absent: model fields stay null (as with `heuristic`). */
  modelFor?(name: string): Promise<Model>;
}

export interface RetrieveOptions {
  signal?: AbortSignal;
  /** Use this scraper instead of the config's, for one retrieval (`pagejson run --scraper`). */
  scraper?: ScraperNumber;
}

export interface RetrieveResult {
  data: Record<string, unknown>;
  sourceUrl: string;
  finalUrl: string;
  fetchedAt: Date;
}

export const EXTRACTION_EMPTY_MESSAGE = 'no data could be extracted from the source page';

export async function retrieve(config: ApiConfig, values: Record<string, unknown>, deps: RetrieveDeps, options: RetrieveOptions = {}): Promise<RetrieveResult> {
  const sourceUrl = resolveSourceUrl(config, values);
  const scraperNumber = options.scraper ?? config.scraper;
  // Session is a scraper-1 feature (SPEC 2.2); a one-off override to another scraper simply fetches without it.
  const session = config.session && scraperByNumber(scraperNumber).supportsSession;
  const page = await deps.scraperFor(scraperNumber).fetch({ url: sourceUrl, session, ...(options.signal ? { signal: options.signal } : {}) });
  const fetchedAt = new Date();

  const compiled = getCompiledStructure(config);
  const extraction = compiled.extract(page.html, page.finalUrl);
  const data = extraction.data;
  let empty = extraction.empty;

  const modelFields = topLevelModelFields(config.structure);
  const filledByModel = new Set<string>();
  if (modelFields.length > 0 && deps.modelFor && config.model !== 'heuristic') {
    const filled = await fillModelFields(config, modelFields, page.html, page.finalUrl, deps.modelFor, options.signal);
    for (const field of modelFields) {
      const value = filled[field.name];
      if (value === undefined) continue;
      data[field.name] = value;
      filledByModel.add(field.name);
      if (!isEmptyValue(value)) empty = false;
    }
  }

  // A required model field the model has just filled is no longer missing; every other entry stands.
  const missingRequired = extraction.missingRequired.filter((path: string) => !(filledByModel.has(path) && !isEmptyValue(data[path])));
  if (empty || missingRequired.length > 0) {
    throw new PagejsonError('EXTRACTION_EMPTY', EXTRACTION_EMPTY_MESSAGE, {
      context: { apiId: config.apiId, sourceUrl, finalUrl: page.finalUrl, missingRequired },
      hint:
        missingRequired.length > 0
          ? `required field(s) ${missingRequired.join(', ')} matched nothing: check the selectors with \`pagejson edit ${config.apiId}\``
          : `no selector matched: the page may have changed or need another scraper (try \`pagejson run ${config.apiId} --scraper 3\`)`,
    });
  }
  return { data, sourceUrl, finalUrl: page.finalUrl, fetchedAt };
}

/**
 * Model fields are fields without a selector. Only top-level ones are sent to the model: a model field inside
 * an array item has no single place in the page to describe, so it stays null (DESIGN.md section 3).
 */
export function topLevelModelFields(structure: Field[]): Field[] {
  return structure.filter((field) => field.selector === undefined && (field.type !== 'object' || !field.fields?.some((f) => f.selector !== undefined)));
}

async function fillModelFields(
  config: ApiConfig,
  fields: Field[],
  pageHtml: string,
  pageUrl: string,
  modelFor: (name: string) => Promise<Model>,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  signal?.throwIfAborted();
  const model = await modelFor(config.model);
  const { sectionHtml } = selectSection(pageHtml, config.selector);
  try {
    const output = await model.fill({ sectionHtml, pageUrl, fields, jsonSchema: dataJsonSchema(fields), rule: config.rule });
    return output.values ?? {};
  } catch (error) {
    if (isPagejsonError(error)) throw error;
    throw new PagejsonError('MODEL_FAILED', `model "${config.model}" could not fill the model fields: ${(error as Error).message}`, {
      context: { apiId: config.apiId, model: config.model },
      hint: 'check the model settings in pagejson.json, or give the fields selectors with `pagejson edit`',
      cause: error,
    });
  }
}

/** Empty in the sense of DESIGN.md section 4: null, '', [] or an object whose every value is empty. */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).every(isEmptyValue);
  return false;
}
