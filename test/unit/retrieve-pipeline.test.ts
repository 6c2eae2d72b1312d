import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConfigSchema, type ApiConfig, type ApiConfigInput } from '../../src/core/config/schema.js';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createModelResolver } from '../../src/core/models/index.js';
import type { Model } from '../../src/core/models/types.js';
import { retrieve, type RetrieveDeps } from '../../src/core/retrieval/retrieve.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/index.js';
import type { FetchRequest, Scraper } from '../../src/core/fetch/scrapers/types.js';
import { exampleConfig } from '../support/example-configs.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

let site: FixtureSite;
let http: Scraper;

/** The real http scraper, with a log of which scraper number was asked for and what request it got. */
function recordingDeps(extra: Partial<RetrieveDeps> = {}): RetrieveDeps & { asked: number[]; requests: FetchRequest[] } {
  const asked: number[] = [];
  const requests: FetchRequest[] = [];
  return {
    asked,
    requests,
    scraperFor(number) {
      asked.push(number);
      return { name: http.name, close: () => Promise.resolve(), fetch: (request) => (requests.push(request), http.fetch(request)) };
    },
    ...extra,
  };
}

function config(input: Omit<ApiConfigInput, 'apiId'> & { apiId?: string }): ApiConfig {
  return ApiConfigSchema.parse({ apiId: 'test', ...input });
}

async function rejection(promise: Promise<unknown>): Promise<PagejsonError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PagejsonError);
  return error as PagejsonError;
}

beforeAll(async () => {
  site = await startFixtureSite();
  http = createHttpScraper({ timeoutMs: 5_000, maxBytes: 1024 * 1024, perOriginConcurrency: 4, allowPrivateNetworks: true });
});

afterAll(async () => {
  await http?.close();
  await site?.close();
});

describe('retrieve with the example configs and the http scraper', () => {
  it('extracts every book card of the listing with typed, absolute values', async () => {
    const result = await retrieve(exampleConfig('books', site.origin), {}, recordingDeps());
    const books = result.data.books as Array<Record<string, unknown>>;
    expect(result.data.title).toBe('All products');
    expect(result.data.count).toBe(14);
    expect(books).toHaveLength(14);
    expect(books[0]).toEqual({
      name: 'A Light in the Attic',
      url: `${site.origin}/catalogue/a-light-in-the-attic/index.html`,
      price: 51.77,
      image: `${site.origin}/media/cache/a-light-in-the-attic.jpg`,
      rating: 'Three',
      inStock: true,
    });
    expect(books[5]).toMatchObject({ name: 'The Requiem Red', price: 22.65, inStock: false, rating: 'One' });
    expect(result.sourceUrl).toBe(`${site.origin}/listing.html`);
    expect(result.finalUrl).toBe(`${site.origin}/listing.html`);
    expect(result.fetchedAt).toBeInstanceOf(Date);
  });

  it('substitutes variables into the url and reads JSON-LD by @type', async () => {
    const deps = recordingDeps();
    const result = await retrieve(exampleConfig('product', site.origin), { sku: 'AP-1001' }, deps);
    expect(result.sourceUrl).toBe(`${site.origin}/product.html?sku=AP-1001`);
    expect(deps.requests[0]?.url).toBe(`${site.origin}/product.html?sku=AP-1001`);
    expect(result.data).toMatchObject({
      name: 'Aeropress Coffee Maker',
      sku: 'AP-1001',
      brand: 'Aerobie',
      price: 29.99,
      currency: 'GBP',
      inStock: true,
      rating: 4.7,
    });
    expect(result.data.specs).toEqual([
      { name: 'Capacity', value: '250 ml' },
      { name: 'Material', value: 'BPA-free polypropylene' },
      { name: 'Weight', value: '0.4 kg' },
    ]);
  });

  it('reads table rows with thousands separators as numbers', async () => {
    const result = await retrieve(exampleConfig('countries', site.origin), {}, recordingDeps());
    const countries = result.data.countries as Array<Record<string, unknown>>;
    expect(countries).toHaveLength(10);
    expect(countries[0]).toEqual({
      rank: 1,
      country: 'India',
      url: `${site.origin}/countries/india`,
      capital: 'New Delhi',
      population: 1_428_627_663,
      areaKm2: 3_287_263,
    });
    expect(countries[6]).toMatchObject({ country: 'Brazil', capital: 'Brasília' });
  });

  it('decodes a windows-1252 page by its charset header', async () => {
    const cafe = config({
      url: `${site.origin}/latin1.windows-1252.html`,
      structure: [
        { name: 'name', type: 'string', selector: 'h1.name' },
        { name: 'city', type: 'string', selector: '.city' },
        { name: 'eur', type: 'string', selector: '.price-eur' },
        { name: 'gbp', type: 'number', selector: '.price-gbp' },
        { name: 'note', type: 'string', selector: '.note' },
      ],
    });
    const result = await retrieve(cafe, {}, recordingDeps());
    expect(result.data).toEqual({
      name: 'Café Müller',
      city: 'Zürich, Schweiz',
      eur: '€14.90',
      gbp: 12.5,
      note: 'Crème brûlée “maison” – déjà prête.',
    });
  });
});

describe('retrieve: variables, scrapers and failures', () => {
  it('percent-encodes a value into its query parameter', async () => {
    const result = await retrieve(exampleConfig('product', site.origin), { sku: 'A B&C' }, recordingDeps()).catch((e: unknown) => e);
    // The pattern [A-Z0-9-]{1,32} refuses the value before anything is fetched.
    expect((result as PagejsonError).code).toBe('VARIABLE_PATTERN');
    const loose = { ...exampleConfig('product', site.origin), variables: { sku: { example: 'x' } } };
    const ok = await retrieve(loose, { sku: 'A B&C' }, recordingDeps());
    expect(ok.sourceUrl).toBe(`${site.origin}/product.html?sku=A%20B%26C`);
  });

  it('refuses missing and unknown variables before fetching', async () => {
    site.resetHits();
    const product = exampleConfig('product', site.origin);
    const missing = await rejection(retrieve(product, {}, recordingDeps()));
    expect(missing.code).toBe('VARIABLE_MISSING');
    expect(missing.message).toBe('missing variable: sku');
    const unknown = await rejection(retrieve(product, { sku: 'AP-1001', colour: 'red' }, recordingDeps()));
    expect(unknown.code).toBe('VARIABLE_UNKNOWN');
    expect(site.hitCount('/product.html')).toBe(0);
  });

  it('uses the scraper override and drops session where the scraper has none', async () => {
    const sessioned = config({
      url: `${site.origin}/table.html`,
      session: true,
      structure: [{ name: 'title', type: 'string', selector: 'h1' }],
    });
    const own = recordingDeps();
    await retrieve(sessioned, {}, own);
    expect(own.asked).toEqual([1]);
    expect(own.requests[0]?.session).toBe(true);

    const overridden = recordingDeps();
    const result = await retrieve(sessioned, {}, overridden, { scraper: 2 });
    expect(overridden.asked).toEqual([2]);
    expect(overridden.requests[0]?.session).toBe(false);
    expect(result.data.title).toBe('Countries by population');
  });

  it('fails with EXTRACTION_EMPTY when no selector matches', async () => {
    const nothing = config({
      url: `${site.origin}/table.html`,
      structure: [
        { name: 'x', type: 'string', selector: '.does-not-exist' },
        { name: 'ys', type: 'array', selector: 'article.none', items: { type: 'string' } },
      ],
    });
    const error = await rejection(retrieve(nothing, {}, recordingDeps()));
    expect(error.code).toBe('EXTRACTION_EMPTY');
    expect(error.message).toBe('no data could be extracted from the source page');
    expect(error.hint).toContain('--scraper');
  });

  it('fails when a required field is empty even though others matched', async () => {
    const partial = config({
      url: `${site.origin}/table.html`,
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'price', type: 'number', selector: '.price', required: true },
      ],
    });
    const error = await rejection(retrieve(partial, {}, recordingDeps()));
    expect(error.code).toBe('EXTRACTION_EMPTY');
    expect(error.context.missingRequired).toEqual(['price']);
  });

  it('passes fetch errors through unchanged', async () => {
    const broken = config({ url: `${site.origin}/error-500.html`, structure: [{ name: 'title', type: 'string', selector: 'h1' }] });
    const error = await rejection(retrieve(broken, {}, recordingDeps()));
    expect(error.code).toBe('FETCH_STATUS');
  });

  it('honours an aborted signal', async () => {
    const books = exampleConfig('books', site.origin);
    const controller = new AbortController();
    controller.abort();
    await expect(retrieve(books, {}, recordingDeps(), { signal: controller.signal })).rejects.toBeTruthy();
  });
});

describe('retrieve: model fields', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm?.close();
  });

  const withModelField = (model: string): ApiConfig =>
    config({
      url: `${site.origin}/product.html`,
      model,
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'summary', type: 'string', description: 'one sentence about the product' },
      ],
    });

  it('leaves model fields null with heuristic and never asks for a model', async () => {
    const asked: string[] = [];
    const deps = recordingDeps({ modelFor: (name) => (asked.push(name), Promise.reject(new Error('not expected'))) });
    const result = await retrieve(withModelField('heuristic'), {}, deps);
    expect(result.data).toEqual({ title: 'Aeropress Coffee Maker', summary: null });
    expect(asked).toEqual([]);
    expect(result.usage).toBeUndefined();
  });

  it('fills model fields through an OpenAI-compatible model and merges them at their paths', async () => {
    llm.script([{ json: { summary: 'A small coffee press.' }, usage: { prompt_tokens: 321, completion_tokens: 45 } }]);
    const resolver = createModelResolver({
      models: { local: { baseURL: llm.baseURL, model: 'fake-model' } },
      env: {},
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    const asked: string[] = [];
    const deps = recordingDeps({ modelFor: (name): Promise<Model> => (asked.push(name), resolver.get(name)) });
    const result = await retrieve(withModelField('local'), {}, deps);
    expect(asked).toEqual(['local']);
    expect(result.data).toEqual({ title: 'Aeropress Coffee Maker', summary: 'A small coffee press.' });
    expect(result.usage).toEqual({ promptTokens: 321, completionTokens: 45 });
    const sent = llm.requests.at(-1)!;
    const schema = sent.body.response_format?.json_schema?.schema as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(['summary']);
  });

  it('counts a required model field as present once the model filled it', async () => {
    llm.script([{ json: { summary: 'Filled by the model.' } }]);
    const resolver = createModelResolver({
      models: { local: { baseURL: llm.baseURL, model: 'fake-model' } },
      env: {},
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    const requiredOnly = config({
      url: `${site.origin}/product.html`,
      model: 'local',
      structure: [{ name: 'summary', type: 'string', required: true }],
    });
    const result = await retrieve(requiredOnly, {}, recordingDeps({ modelFor: (name) => resolver.get(name) }));
    expect(result.data).toEqual({ summary: 'Filled by the model.' });
  });

  it('keeps only http(s) urls of whatever model filled them, as extraction does', async () => {
    // A model with no schema check of its own: the pipeline itself holds its values to the url rule.
    const unchecked: Model = {
      name: 'unchecked',
      generate: () => Promise.reject(new Error('not expected')),
      fill: async () => ({
        values: { link: 'javascript:alert(1)', links: ['vbscript:msgbox(1)', 'https://shop.example/a', 'b.html'] },
        usage: { promptTokens: 1, completionTokens: 1 },
      }),
    };
    const withUrls = config({
      url: `${site.origin}/product.html`,
      model: 'unchecked',
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'link', type: 'url' },
        { name: 'links', type: 'array', items: { type: 'url' } },
      ],
    });
    const result = await retrieve(withUrls, {}, recordingDeps({ modelFor: async () => unchecked }));
    expect(result.data).toEqual({
      title: 'Aeropress Coffee Maker',
      link: null,
      links: ['https://shop.example/a', `${site.origin}/b.html`],
    });
  });
});
