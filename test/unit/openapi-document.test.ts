import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConfigSchema } from '../../src/core/config/schema.js';
import { buildOpenApiDocument } from '../../src/core/catalog/openapi.js';
import { retrieve } from '../../src/core/retrieval/retrieve.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/index.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { EXAMPLE_CONFIG_IDS, EXAMPLE_ORIGIN, exampleConfig } from '../support/example-configs.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const configs = [
  ...EXAMPLE_CONFIG_IDS.map((id) => exampleConfig(id, EXAMPLE_ORIGIN)),
  ApiConfigSchema.parse({
    apiId: 'old-page',
    status: 'inactive',
    url: `${EXAMPLE_ORIGIN}/{{ section }}/index.html?q={{ query }}`,
    variables: { section: { example: 'news' }, query: { example: 'x', pattern: '[a-z]+' } },
    structure: [{ name: 'title', type: 'string', selector: 'h1' }],
  }),
];
const doc = buildOpenApiDocument(configs, { serverUrl: 'http://127.0.0.1:8080' }) as Json;

/** One Ajv over the whole document, so `#/components/...` references resolve as they would in a tool. */
function validatorFor(pointer: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'https://pagejson.local/openapi.json', components: doc.components });
  return ajv.compile({ $ref: `https://pagejson.local/openapi.json${pointer}` });
}

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => collectRefs(item, out));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') out.push(inner);
      else collectRefs(inner, out);
    }
  }
  return out;
}

function resolvePointer(pointer: string): unknown {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with the apikey header as its security scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTypeOf('string');
    expect(doc.info.version).toBeTypeOf('string');
    expect(doc.components.securitySchemes.apikey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'apikey' }));
    expect(doc.security).toEqual([{ apikey: [] }]);
  });

  it('has GET for static configs and POST (plus GET with query parameters) for dynamic ones', () => {
    expect(Object.keys(doc.paths)).toEqual(['/external/books', '/external/countries', '/external/old-page', '/external/product']);
    expect(Object.keys(doc.paths['/external/books'])).toEqual(['get']);
    const product = doc.paths['/external/product'];
    expect(product.post.requestBody.required).toBe(true);
    expect(product.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/product.variables' });
    expect(product.get.parameters).toEqual([
      { name: 'sku', in: 'query', required: true, schema: expect.objectContaining({ type: 'string', pattern: '^(?:[A-Z0-9-]{1,32})$' }) },
    ]);
    expect(doc.paths['/external/old-page'].post.deprecated).toBe(true);
  });

  it('lists the statuses of docs/wire.md per method', () => {
    expect(Object.keys(doc.paths['/external/books'].get.responses)).toEqual(['200', '401', '402', '403', '404', '500', '502', '503']);
    expect(Object.keys(doc.paths['/external/product'].post.responses)).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '413',
      '415',
      '500',
      '502',
      '503',
    ]);
    // A block page, a failed login and a source's 429 are the caller's to read (docs/block-pages.md).
    expect(doc.components.responses.Error502.description).toContain('"the source answered with a block page, not the page: <reason>"');
    expect(doc.components.responses.Error503.description).toContain('"the source asked to be left alone (HTTP 429); try again in <N> s"');
    expect(doc.components.responses.Error401.description).toContain('"Path: apikey -  Message: Required"');
    expect(doc.components.responses.Error402.description).toContain('"No credits left ⚠. Please buy more credits"');
    expect(doc.paths['/external/books'].get.responses['200'].headers['X-Pagejson-Cache'].schema.enum).toEqual([
      'HIT',
      'STALE',
      'MISS',
      'BYPASS',
    ]);
  });

  it('has unique operation ids and no dangling references', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(resolvePointer(ref), ref).toBeDefined();
  });

  it('embeds schemas that compile and mean what they say', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      if (collectRefs(schema).length === 0) expect(() => ajv.compile(schema as object), name).not.toThrow();
    }
    const errorEnvelope = validatorFor('#/components/schemas/ErrorEnvelope');
    expect(errorEnvelope({ data: null, errors: [{ message: 'no data', code: 'NO_DATA' }] })).toBe(true);
    expect(errorEnvelope({ data: null, errors: [] })).toBe(false);
    expect(errorEnvelope({ data: {}, errors: [{ message: 'x' }] })).toBe(false);

    const variables = validatorFor('#/components/schemas/product.variables');
    expect(variables({ sku: 'AP-1001' })).toBe(true);
    expect(variables({})).toBe(false);
    expect(variables({ sku: 'lower case' })).toBe(false);
    expect(variables({ sku: 7 })).toBe(false);
    expect(variables({ sku: 'AP-1001', colour: 'red' })).toBe(false);
    const twoVariables = validatorFor('#/components/schemas/old-page.variables');
    expect(twoVariables({ section: 'anything goes', query: 'abc' })).toBe(true);
    expect(twoVariables({ section: 'x'.repeat(1025), query: 'abc' })).toBe(false);
  });
});

describe('the success envelopes against real retrievals', () => {
  let site: FixtureSite;
  let http: Scraper;
  beforeAll(async () => {
    site = await startFixtureSite();
    http = createHttpScraper({ timeoutMs: 5_000, maxBytes: 1024 * 1024, perOriginConcurrency: 4, allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await http?.close();
    await site?.close();
  });

  it.each(EXAMPLE_CONFIG_IDS)('%s data fits its envelope schema', async (apiId) => {
    const config = exampleConfig(apiId, site.origin);
    const values = Object.fromEntries(Object.entries(config.variables).map(([name, variable]) => [name, variable.example]));
    const { data } = await retrieve(config, values, { scraperFor: () => http });
    const envelope = validatorFor(`#/components/schemas/${apiId}.envelope`);
    expect(envelope({ data, errors: null }), JSON.stringify(envelope.errors)).toBe(true);
    expect(envelope({ data: { ...data, unexpected: 1 }, errors: null })).toBe(false);
    expect(envelope({ data, errors: [] })).toBe(false);
  });
});
