import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiConfigSchema } from '../../src/core/config/schema.js';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { defaultApiId, generateConfig, parseVarFlag, type GenerateRequest } from '../../src/core/generation/generate.js';
import { createModelResolver } from '../../src/core/models/index.js';
import { createScraperPool, type ScraperPool } from '../../src/core/fetch/scrapers/index.js';
import { startFakeLlm, userContent, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

const field = (name: string, type: string, selector: string | null, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  selector,
  attribute: null,
  transform: null,
  description: null,
  items: null,
  fields: null,
  ...extra,
});

describe('generateConfig', () => {
  let site: FixtureSite;
  let llm: FakeLlm;
  let pool: ScraperPool;
  const now = () => new Date('2026-11-22T10:00:00.000Z');

  beforeAll(async () => {
    site = await startFixtureSite();
    llm = await startFakeLlm();
    pool = createScraperPool({ timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 });
  });
  afterAll(async () => {
    await pool.close();
    await llm.close();
    await site.close();
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });

  const models = () => createModelResolver({ models: { local: { baseURL: llm.baseURL, model: 'fake-1' } }, env: {}, maxRetries: 0 });
  const deps = () => {
    const resolver = models();
    return { scraperFor: (n: 1 | 2 | 3) => pool.get(n), modelFor: (name: string) => resolver.get(name), now };
  };
  const request = (overrides: Partial<GenerateRequest>): GenerateRequest => ({
    url: `${site.origin}/listing.html`,
    scraper: 1,
    session: false,
    model: 'local',
    selector: 'main',
    rule: null,
    caching: true,
    vars: [],
    ...overrides,
  });

  it("builds a revision-1 config from the model's proposal, with a sample, usage and model fields filled", async () => {
    llm.script([
      {
        json: {
          structure: [
            field('heading', 'string', 'h1'),
            field('summary', 'string', '.no-such-thing', { description: 'what the page lists' }),
            field('books', 'array', 'article.product_pod', {
              fields: [
                field('title', 'string', 'h3 a', { attribute: 'title' }),
                field('price', 'number', '.price_color', { transform: ['number'] }),
              ],
            }),
          ],
        },
        usage: { prompt_tokens: 900, completion_tokens: 80 },
      },
      { json: { summary: 'Fourteen books' }, usage: { prompt_tokens: 300, completion_tokens: 10 } },
    ]);
    const result = await generateConfig(request({ apiId: 'books', rule: 'books and prices' }), deps());

    expect(ApiConfigSchema.parse(result.config)).toEqual(result.config);
    expect(result.config).toMatchObject({
      apiId: 'books',
      revision: 1,
      status: 'active',
      url: `${site.origin}/listing.html`,
      model: 'local',
      selector: 'main',
      rule: 'books and prices',
      caching: true,
    });
    expect(result.config.structure[1]).toEqual({ name: 'summary', type: 'string', description: 'what the page lists' });
    expect(result.sample.heading).toBe('All products');
    expect(result.sample.summary).toBe('Fourteen books');
    expect(result.sample.books).toHaveLength(14);
    expect((result.sample.books as Array<Record<string, unknown>>)[0]).toEqual({ title: 'A Light in the Attic', price: 51.77 });
    expect(result.config.generated).toEqual({
      at: '2026-11-22T10:00:00.000Z',
      model: 'local',
      scraper: 1,
      sample: result.sample,
      usage: { promptTokens: 1200, completionTokens: 90 },
    });
    // The section the model saw is <main>, not the header outside it.
    const sent = userContent(llm.requests[0]!);
    expect(sent).toContain('product_pod');
    expect(sent).not.toContain('page_header');
    expect(llm.requests[1]!.body.response_format?.json_schema?.schema).toMatchObject({ properties: { summary: expect.any(Object) } });
  });

  it('marks --var places dynamic with the current values as examples', async () => {
    llm.script([{ json: { structure: [field('heading', 'string', 'h1')] } }]);
    const result = await generateConfig(
      request({ url: `${site.origin}/listing.html?page=2&sort=asc`, vars: ['path:1=page_name', 'query:page=page'] }),
      deps(),
    );
    expect(result.config.url).toBe(`${site.origin}/{{ page_name }}?page={{ page }}&sort=asc`);
    expect(result.config.variables).toEqual({ page_name: { example: 'listing.html' }, page: { example: '2' } });
  });

  it('says which fields the model asked for matched nothing, and what became of them (issue 52 item 4)', async () => {
    llm.script([
      {
        json: {
          structure: [
            field('heading', 'string', 'h1'),
            field('summary', 'string', '.no-such-thing'),
            field('books', 'array', 'article.product_pod', {
              fields: [field('title', 'string', 'h3 a', { attribute: 'title' }), field('rating', 'string', '.no-stars')],
            }),
          ],
        },
      },
      { json: { summary: 'Fourteen books' } },
    ]);
    const result = await generateConfig(request({ apiId: 'books' }), deps());
    expect(result.fieldNotes).toEqual([
      {
        field: 'summary',
        outcome: 'model field',
        reason: 'its selector ".no-such-thing" matches nothing on the page: the model fills it at retrieval',
      },
      {
        field: 'books.rating',
        outcome: 'dropped',
        reason: 'its selector ".no-stars" matches nothing inside books (a field inside a list or object is not filled by the model)',
      },
    ]);
    expect(JSON.stringify(result.config.structure)).not.toContain('rating');
  });

  it('works offline with the heuristic model and never calls the LLM', async () => {
    const result = await generateConfig(request({ model: 'heuristic', selector: 'body' }), deps());
    expect(llm.requests).toHaveLength(0);
    expect(result.config.model).toBe('heuristic');
    expect(JSON.stringify(result.sample)).toContain('A Light in the Attic');
    expect(result.config.generated?.usage).toBeUndefined();
  });

  it('decodes the title it describes the config with, and offers a JSON-LD description holding HTML as its text (issue 52 item 10)', async () => {
    const result = await generateConfig(
      request({ url: `${site.origin}/kettle-entities.html`, model: 'heuristic', selector: 'body' }),
      deps(),
    );
    expect(result.config.description).toBe('Kettle & Co | Shop');
    expect(result.sample.title).toBe('Kettle & Co | Shop');
    expect(result.sample.product).toMatchObject({ name: 'Steel Kettle', description: 'A steel kettle & lid.' });
    const product = result.config.structure.find((field) => field.name === 'product');
    expect(product?.fields?.find((field) => field.name === 'description')?.transform).toEqual(['json:Product.description', 'plainText']);
  });

  it('says clearly when the selector matches nothing, naming the sections the page has, before calling the model', async () => {
    const error = await generateConfig(request({ selector: '#missing', url: `${site.origin}/jobs-board.html` }), deps()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PagejsonError);
    expect((error as PagejsonError).code).toBe('USAGE');
    expect((error as PagejsonError).message).toBe(`the section selector "#missing" matches nothing on ${site.origin}/jobs-board.html`);
    // The list of jobs first (4 items), then the news (3); the three links of the menu are not a section of content.
    expect((error as PagejsonError).context.candidates).toEqual([
      { selector: 'ul.jobs', items: 4, item: 'li.job' },
      { selector: 'aside.news', items: 3, item: 'div.story' },
      { selector: 'nav', items: 3, item: 'a' },
    ]);
    expect((error as PagejsonError).hint).toContain('"ul.jobs" (4 × li.job)');
    expect(llm.requests).toHaveLength(0);
  });

  it('proposes only fields from inside a narrowed section, whatever the page has around it', async () => {
    const whole = await generateConfig(request({ url: `${site.origin}/jobs-board.html`, model: 'heuristic', selector: 'body' }), deps());
    // On the whole page the heuristic offers page facts (title, description…) beside the jobs.
    expect(JSON.stringify(whole.sample)).toContain('Harbor Jobs');
    const narrowed = await generateConfig(
      request({ url: `${site.origin}/jobs-board.html`, model: 'heuristic', selector: '.jobs' }),
      deps(),
    );
    const text = JSON.stringify(narrowed.sample);
    expect(text).toContain('Line cook');
    for (const outside of ['Harbor Jobs', 'Jobs at the harbor', 'New pier opens', 'Harbor Inc', 'harbor.png'])
      expect(text).not.toContain(outside);
    // Every field resolves inside the section: the same data without the whole-page fallback.
    const { compileStructure, parseHtml } = await import('../../src/core/extract/engine/index.js');
    const html = await (await fetch(`${site.origin}/jobs-board.html`)).text();
    const inside = compileStructure({ selector: '.jobs', structure: narrowed.config.structure }).extractFromDocument(
      parseHtml(html),
      `${site.origin}/jobs-board.html`,
      { sectionOnly: true },
    );
    expect(inside.data).toEqual(narrowed.sample);
  });

  it('rejects a wrong --var and --session with another scraper before fetching', async () => {
    site.resetHits();
    await expect(generateConfig(request({ vars: ['path:5=x'] }), deps())).rejects.toMatchObject({ code: 'TEMPLATE_INVALID' });
    await expect(generateConfig(request({ vars: ['segment=x'] }), deps())).rejects.toMatchObject({ code: 'USAGE' });
    await expect(generateConfig(request({ session: true, scraper: 2 }), deps())).rejects.toMatchObject({ code: 'USAGE' });
    await expect(generateConfig(request({ url: 'ftp://example.com/x' }), deps())).rejects.toMatchObject({ code: 'USAGE' });
    expect(site.hitCount('/listing.html')).toBe(0);
  });

  it('fails with MODEL_NOT_FOUND for an unknown model, listing the choices', async () => {
    const error = (await generateConfig(request({ model: 'gpt-nope' }), deps()).catch((e: unknown) => e)) as PagejsonError;
    expect(error.code).toBe('MODEL_NOT_FOUND');
    expect(error.hint).toContain('heuristic, local, openai:<model>');
  });
});

describe('defaultApiId and parseVarFlag', () => {
  it('slugs the host and the last path segment', () => {
    expect(defaultApiId('https://www.shop.example/catalogue/travel/index.html')).toBe('shop-example-travel');
    expect(defaultApiId('http://127.0.0.1:4173/listing.html')).toBe('127-0-0-1-listing');
    expect(defaultApiId('https://Example.COM/')).toBe('example-com');
    expect(defaultApiId(`https://example.com/${'x'.repeat(100)}`)).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
    expect(defaultApiId('https://example.com/Ünïcode%20Page')).toBe('example-com-n-code-page');
  });

  it('reads path:N=NAME and query:PARAM=NAME', () => {
    expect(parseVarFlag('path:2=category')).toEqual({ spec: 'path:2', name: 'category' });
    expect(parseVarFlag('query:page=page')).toEqual({ spec: 'query:page', name: 'page' });
    expect(() => parseVarFlag('category')).toThrow(/cannot read --var/);
  });
});
