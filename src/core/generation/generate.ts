import {
  API_ID_PATTERN,
  ApiConfigSchema,
  CONFIG_SCHEMA_REF,
  DEFAULT_MAX_PAGES,
  markVariable,
  actionVariableNames,
  type Action,
  type ApiConfig,
  type Field,
  type PaginationSettings,
  type LoginSettings,
  type ProxySettings,
  type RequestSettings,
  type ScraperNumber,
} from '../config/index.js';
import { PagejsonError } from '../shared/index.js';
import { HEURISTIC_MODEL, isNarrowed, type GenerateOutput, type Model, type TokenUsage } from '../models/index.js';
import { loginOf, scraperByNumber, type PageSteps, type Scraper } from '../fetch/index.js';
import {
  candidateSections,
  compileStructure,
  dataJsonSchema,
  DEFAULT_DOCUMENT_LIMITS,
  htmlToText,
  isEmptyValue,
  parseHtml,
  selectSection,
  type DocumentLimits,
} from '../extract/index.js';
import { paginationProposal, type NextLinkProposal } from './next-link.js';

/**
 * The generation pipeline: fetch the page → narrow it to the section → the model proposes a structure with
 * selectors → a sample is extracted with the compiled structure (what retrieval will return) → `--var`
 * marks URL parts dynamic. The result is a complete config at revision 1; saving it (and charging credits)
 * is the caller's business.
 */
export interface GenerateRequest {
  url: string;
  apiId?: string;
  scraper: ScraperNumber;
  session: boolean;
  model: string;
  selector: string;
  rule: string | null;
  caching: boolean;
  /** `path:N=NAME` or `query:PARAM=NAME`, applied after generation (the example is the URL's current value). */
  vars: string[];
  /** `--header` and `--proxy` (docs/access.md): sent with the page's fetch and kept in the config, as templates. */
  access?: { request?: RequestSettings; proxy?: ProxySettings } | undefined;
  /** `--login` (docs/access.md, "Logins"): the page is fetched signed in, and the config keeps the login as typed. */
  login?: LoginSettings | undefined;
  /** Propose pagination.next when the page has a recognisable next link (default true; `--no-paginate`). */
  paginate?: boolean;
  /** `--actions` (docs/actions.md): run on the page before it is read (scraper 3), and kept in the config. */
  actions?: Action[] | undefined;
  /** `--var-example name=value`: the example of each variable the actions type (`{{ name }}`), used to generate. */
  actionExamples?: Record<string, string> | undefined;
  /** The pagination of the config `--force` replaces: kept over a proposal. */
  pagination?: PaginationSettings | undefined;
}

export interface GenerateDeps {
  scraperFor(number: ScraperNumber): Scraper;
  modelFor(name: string): Promise<Model>;
  now?: () => Date;
  signal?: AbortSignal;
  /** The document limits the page is parsed within (extraction.maxDepth, maxElements; default theirs). */
  limits?: DocumentLimits;
}

export interface GenerateResult {
  config: ApiConfig;
  sample: Record<string, unknown>;
  finalUrl: string;
  /** The page as fetched: the review's editor shows live samples from it without fetching again. */
  html: string;
  usage?: TokenUsage;
  /** The next link found on the page, proposed as pagination.next (next-link.ts). */
  nextLink?: NextLinkProposal;
  /** Fields the model asked for that matched nothing: dropped or made model fields, and why. */
  fieldNotes?: FieldNote[];
}

export type FieldNote = NonNullable<GenerateOutput['fieldNotes']>[number];

export const DEFAULT_SELECTOR = 'body';

export async function generateConfig(request: GenerateRequest, deps: GenerateDeps): Promise<GenerateResult> {
  const { url, apiId, template, selector } = checkRequest(request);
  const page = await deps.scraperFor(request.scraper).fetch({
    url,
    session: request.session,
    access: { endpoint: apiId, ...request.access },
    ...loginOf({ apiId, login: request.login }),
    ...generationSteps(request),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  // The first parse is within the limits: a page past them stops here, before any model reads it.
  const limits = deps.limits ?? DEFAULT_DOCUMENT_LIMITS;
  const sectionHtml = sectionOf(page, selector, limits);
  const model = await deps.modelFor(request.model);
  const proposal = await model.generate({ sectionHtml, pageHtml: page.html, pageUrl: page.finalUrl, selector, rule: request.rule });
  const { structure, doc } = proposedStructure(proposal.structure, request, selector, page, limits);
  proposal.structure = structure;
  const { sample, usage } = await sampleOf(proposal, { request, model, selector, sectionHtml, doc, pageUrl: page.finalUrl });
  const description = describeGenerated(page.html, request.rule);
  const nextLink = request.paginate === false || request.pagination ? null : paginationProposal(proposal.structure, doc, page.finalUrl);
  const config = ApiConfigSchema.parse({
    $schema: CONFIG_SCHEMA_REF,
    apiId,
    ...(description ? { description } : {}),
    revision: 1,
    status: 'active',
    url: template.url,
    variables: { ...template.variables, ...actionVariables(request) },
    scraper: request.scraper,
    ...(request.actions && request.actions.length > 0 ? { actions: request.actions } : {}),
    session: request.session,
    ...request.access,
    ...(request.login ? { login: request.login } : {}),
    caching: request.caching,
    model: request.model,
    selector,
    rule: request.rule,
    ...paginationOf(request, nextLink),
    structure: proposal.structure,
    generated: {
      at: (deps.now?.() ?? new Date()).toISOString(),
      model: request.model,
      scraper: request.scraper,
      sample,
      ...(usage ? { usage } : {}),
    },
  });
  const notes = proposal.fieldNotes ?? [];
  return {
    config,
    sample,
    finalUrl: page.finalUrl,
    html: page.html,
    ...(usage ? { usage } : {}),
    ...(nextLink ? { nextLink } : {}),
    ...(notes.length > 0 ? { fieldNotes: notes } : {}),
  };
}

/** The page's steps of a generation: its actions, typed with the examples (none without actions). */
export function generationSteps(request: GenerateRequest): { steps?: PageSteps } {
  if (!request.actions || request.actions.length === 0) return {};
  return { steps: { actions: request.actions, values: { ...request.actionExamples } } };
}

function actionVariables(request: GenerateRequest): ApiConfig['variables'] {
  const variables: ApiConfig['variables'] = {};
  for (const name of actionVariableNames(request.actions)) {
    const example = request.actionExamples && Object.hasOwn(request.actionExamples, name) ? request.actionExamples[name] : undefined;
    if (example !== undefined) variables[name] = { example };
  }
  return variables;
}

/** A kept pagination wins over a proposed next link: the user wrote it. */
function paginationOf(request: GenerateRequest, nextLink: NextLinkProposal | null): { pagination?: PaginationSettings } {
  if (request.pagination) return { pagination: request.pagination };
  return nextLink ? { pagination: { next: nextLink.next, maxPages: DEFAULT_MAX_PAGES } } : {};
}

/** Actions need the browser, and an example for each variable they type (or the URL's own). */
function checkActions(request: GenerateRequest, template: UrlTemplate): void {
  if (!request.actions || request.actions.length === 0) return;
  if (request.scraper !== 3)
    throw new PagejsonError('USAGE', `actions need scraper 3 (the browser), not scraper ${request.scraper}`, {
      hint: 'use --scraper 3 (the default with --actions), or leave --actions out',
    });
  const examples = request.actionExamples ?? {};
  const names = actionVariableNames(request.actions);
  for (const name of names) {
    if (!Object.hasOwn(examples, name) && !Object.hasOwn(template.variables, name))
      throw new PagejsonError('USAGE', `the actions type {{ ${name} }}, which has no example`, {
        hint: `give the value to generate with: --var-example ${name}=…`,
      });
  }
  for (const name of Object.keys(examples)) {
    if (!names.includes(name))
      throw new PagejsonError('USAGE', `--var-example ${name}: no action types {{ ${name} }}`, {
        hint: names.length > 0 ? `the actions type ${names.map((one) => `{{ ${one} }}`).join(', ')}` : 'leave --var-example out',
      });
  }
}

type UrlTemplate = { url: string; variables: ApiConfig['variables'] };

/** What the request alone decides, checked before the page is fetched. */
function checkRequest(request: GenerateRequest): { url: string; apiId: string; template: UrlTemplate; selector: string } {
  const url = checkSourceUrl(request.url);
  if (request.session && !scraperByNumber(request.scraper).supportsSession) {
    throw new PagejsonError('USAGE', `--session works only with scraper 1, not scraper ${request.scraper}`, {
      hint: 'drop --session, or use --scraper 1',
    });
  }
  const apiId = request.apiId ?? defaultApiId(url);
  if (!API_ID_PATTERN.test(apiId)) {
    throw new PagejsonError('USAGE', `"${apiId}" is not a valid API id`, {
      hint: 'use 1-64 characters of a-z, 0-9, _ and -, starting with a letter or digit (--id)',
    });
  }
  // Variables are marked before fetching so that a wrong --var fails at once, not after a paid generation.
  let template: UrlTemplate = { url, variables: {} };
  for (const { spec, name } of request.vars.map(parseVarFlag)) template = markVariable(template, spec, name);
  checkActions(request, template);
  return { url, apiId, template, selector: request.selector.trim() || DEFAULT_SELECTOR };
}

/** The section's HTML; a selector that matches nothing is refused with the sections the page has. */
function sectionOf(page: { html: string; finalUrl: string }, selector: string, limits: DocumentLimits): string {
  const { sectionHtml, matched } = selectSection(page.html, selector, limits);
  if (matched > 0) return sectionHtml;
  const offered = candidateSections(parseHtml(page.html, limits).children);
  const list = offered.map((candidate) => `"${candidate.selector}" (${candidate.items} × ${candidate.item})`).join(', ');
  throw new PagejsonError('USAGE', `the section selector "${selector}" matches nothing on ${page.finalUrl}`, {
    context: { selector, url: page.finalUrl, candidates: offered },
    hint:
      offered.length > 0
        ? `sections this page has: ${list}; or leave --selector out for the whole page`
        : 'check the selector against the page source, or leave --selector out for the whole page',
  });
}

/**
 * The model's structure as it will be saved. A narrowed section means what it says: a field that only the
 * whole page yields (a proposal from outside the section) is not offered, whichever model proposed it.
 */
function proposedStructure(
  proposed: Field[],
  request: GenerateRequest,
  selector: string,
  page: { html: string; finalUrl: string },
  limits: DocumentLimits,
): { structure: Field[]; doc: ReturnType<typeof parseHtml> } {
  const pageUrl = page.finalUrl;
  if (proposed.length === 0) {
    throw new PagejsonError('EXTRACTION_EMPTY', `model ${request.model} found nothing to extract in "${selector}" on ${pageUrl}`, {
      context: { selector, url: pageUrl, model: request.model },
      hint: 'try a narrower --selector, a --rule that says what to extract, or another --model',
    });
  }
  // One parse of the page for this check and the sample.
  const doc = parseHtml(page.html, limits);
  const structure = isNarrowed(selector) ? insideSection(proposed, selector, doc, pageUrl) : proposed;
  if (structure.length === 0) {
    throw new PagejsonError('EXTRACTION_EMPTY', `model ${request.model} found nothing to extract inside "${selector}" on ${pageUrl}`, {
      context: { selector, url: pageUrl, model: request.model },
      hint: 'the section has no data the model recognises: widen --selector, add a --rule that says what to extract, or try another --model',
    });
  }
  return { structure, doc };
}

interface SampleInput {
  request: GenerateRequest;
  model: Model;
  selector: string;
  sectionHtml: string;
  doc: ReturnType<typeof parseHtml>;
  pageUrl: string;
}

/**
 * The sample shows what retrieval will return, model fields included (never with heuristic: they stay null).
 * Only top-level ones: the OpenAI model turns unmatched selectors into top-level model fields, nothing deeper.
 */
async function sampleOf(
  proposal: { structure: Field[]; usage?: TokenUsage },
  input: SampleInput,
): Promise<{ sample: Record<string, unknown>; usage: TokenUsage | undefined }> {
  const { request, model, selector, pageUrl } = input;
  const compiled = compileStructure({ selector, structure: proposal.structure });
  const sample = compiled.extractFromDocument(input.doc, pageUrl).data;
  let usage = proposal.usage;
  const modelFields = compiled.modelFields.filter((entry) => !entry.inArray && !entry.path.includes('.')).map((entry) => entry.field);
  if (modelFields.length > 0 && request.model !== HEURISTIC_MODEL) {
    const filled = await model.fill({
      sectionHtml: input.sectionHtml,
      pageUrl,
      fields: modelFields,
      jsonSchema: dataJsonSchema(modelFields),
      rule: request.rule,
    });
    for (const field of modelFields) if (filled.values[field.name] !== undefined) sample[field.name] = filled.values[field.name];
    usage = addUsage(usage, filled.usage);
  }
  return { sample, usage };
}

/** The fields that yield something when read inside the section alone (model fields, with no selector, stay). */
function insideSection(structure: Field[], selector: string, doc: ReturnType<typeof parseHtml>, pageUrl: string): Field[] {
  return structure.filter((field) => {
    if (field.selector === undefined) return true;
    try {
      const { data } = compileStructure({ selector, structure: [field] }).extractFromDocument(doc, pageUrl, { sectionOnly: true });
      return !isEmptyValue(data[field.name]);
    } catch {
      return false;
    }
  });
}

export function checkSourceUrl(text: string): string {
  let parsed: URL;
  try {
    parsed = new URL(text.trim());
  } catch {
    throw new PagejsonError('USAGE', `"${text}" is not a URL`, {
      hint: 'give the full address, e.g. https://shop.example/catalogue/index.html',
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PagejsonError('USAGE', `only http and https pages can be fetched, not ${parsed.protocol}`, {
      hint: 'give an http:// or https:// address',
    });
  }
  return parsed.href;
}

/** `path:2=category` → {spec: 'path:2', name: 'category'}. */
export function parseVarFlag(flag: string): { spec: string; name: string } {
  const match = /^((?:path|query):[^=]+)=(.+)$/.exec(flag.trim());
  if (!match) {
    throw new PagejsonError('USAGE', `cannot read --var "${flag}"`, {
      hint: 'write --var path:N=NAME (N-th path segment, from 1) or --var query:PARAM=NAME',
    });
  }
  return { spec: match[1]!, name: match[2]! };
}

/**
 * An id a user would pick: the host without `www.` and the last meaningful path segment, slugged.
 * `https://www.shop.example/catalogue/travel/index.html` → `shop-example-travel`.
 */
export function defaultApiId(url: string): string {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^www\./, '');
  const segments = parsed.pathname
    .split('/')
    .map((segment) => safeDecode(segment).replace(/\.[a-z0-9]+$/i, ''))
    .filter((segment) => segment !== '' && segment !== 'index');
  const last = segments.at(-1);
  const slug = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
  const hostSlug = slug(host) || 'page';
  const lastSlug = last ? slug(last) : '';
  const id = (lastSlug ? `${hostSlug}-${lastSlug}` : hostSlug).slice(0, 64).replace(/-+$/, '');
  return API_ID_PATTERN.test(id) ? id : 'page';
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a) return b;
  if (!b) return a;
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens };
}

/** A description for a new endpoint: the page's title as a reader sees it (`&amp;` is `&`), and the rule. */
function describeGenerated(html: string, rule: string | null): string | undefined {
  const raw = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(html)?.[1];
  const title = raw === undefined ? undefined : (htmlToText(raw) ?? undefined);
  const text = [title, rule].filter((part): part is string => Boolean(part)).join(': ');
  return text.length > 0 ? text.slice(0, 300) : undefined;
}
