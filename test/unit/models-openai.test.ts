import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createOpenAiModel } from '../../src/core/models/openai.js';
import { startFakeLlm, userContent, type FakeLlm } from '../support/fake-llm.js';

const section = `<section class="catalog">
  <script>window.tracking = "SECRET_TRACKER"</script>
  <style>.card { color: red }</style>
  <h1 class="title" style="font-weight:bold">Lamps</h1>
  ${Array.from({ length: 30 }, (_, i) => `<article class="card" onclick="buy(${i})"><h2><a href="/lamp/${i}">Lamp ${i}</a></h2><p class="price">$${i}.50</p></article>`).join('\n')}
</section>`;

const proposed = {
  structure: [
    { name: 'title', type: 'string', selector: 'h1.title', attribute: null, transform: null, description: null, items: null, fields: null },
    {
      name: 'summary',
      type: 'string',
      selector: 'p.summary',
      attribute: null,
      transform: [],
      description: 'one-line summary',
      items: null,
      fields: null,
    },
    {
      name: 'lamps',
      type: 'array',
      selector: 'article.card',
      attribute: null,
      transform: null,
      description: null,
      items: null,
      fields: [
        { name: 'name', type: 'string', selector: 'h2 a', attribute: null, transform: null, description: null, items: null, fields: null },
        {
          name: 'url',
          type: 'url',
          selector: 'h2 a',
          attribute: 'href',
          transform: ['absoluteUrl'],
          description: null,
          items: null,
          fields: null,
        },
        {
          name: 'rating',
          type: 'number',
          selector: '.stars',
          attribute: null,
          transform: null,
          description: null,
          items: null,
          fields: null,
        },
      ],
    },
  ],
};

describe('OpenAI-compatible model against the fake server', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm.close());
  beforeEach(() => {
    llm.requests.length = 0;
  });
  const model = () =>
    createOpenAiModel({ name: 'local', baseURL: llm.baseURL, apiKey: 'test-key', model: 'fake-1', maxRetries: 0, maxInputTokens: 1500 });
  const input = {
    sectionHtml: section,
    pageHtml: `<html><body>${section}</body></html>`,
    pageUrl: 'http://127.0.0.1/lamps',
    selector: 'section.catalog',
    rule: 'only lamps and their prices',
  };

  it('sends the heuristic proposal and cleaned regions within the budget, the rule and a strict JSON Schema, and verifies every selector', async () => {
    llm.script([{ json: proposed, usage: { prompt_tokens: 1234, completion_tokens: 56 } }]);
    const output = await model().generate(input);

    expect(llm.requests).toHaveLength(1);
    const request = llm.requests[0]!;
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(request.body.model).toBe('fake-1');
    expect(request.body.response_format?.type).toBe('json_schema');
    expect(request.body.response_format?.json_schema?.strict).toBe(true);
    expect(request.body.response_format?.json_schema?.schema).toMatchObject({ required: ['structure'] });
    const sent = userContent(request);
    expect(sent).toContain('only lamps and their prices');
    expect(sent).toContain('class="card"');
    expect(sent).not.toContain('SECRET_TRACKER');
    expect(sent).not.toContain('onclick');
    expect(sent).not.toContain('color: red');
    // The section first, then the list the heuristic found in it, two items for thirty.
    expect(sent).toMatch(/### 1\. the section you chose: `section\.catalog`[\s\S]*### 2\. list of 30 items: `article\.card`/);
    expect(sent).toMatch(/- \w+ \(array\) "article\.card"/);
    expect(sent.length).toBeLessThan(1500 * 3);

    // nulls dropped; a top-level field matching nothing is a model field; a nested one matching nothing is dropped
    expect(output.structure).toEqual([
      { name: 'title', type: 'string', selector: 'h1.title' },
      { name: 'summary', type: 'string', description: 'one-line summary' },
      {
        name: 'lamps',
        type: 'array',
        selector: 'article.card',
        fields: [
          { name: 'name', type: 'string', selector: 'h2 a' },
          { name: 'url', type: 'url', selector: 'h2 a', attribute: 'href', transform: ['absoluteUrl'] },
        ],
      },
    ]);
    expect(output.usage).toEqual({ promptTokens: 1234, completionTokens: 56 });
  });

  it('retries once on invalid JSON and then succeeds, summing the usage', async () => {
    llm.script(['{"structure": [ oops', { json: proposed }]);
    const output = await model().generate(input);
    expect(llm.requests).toHaveLength(2);
    const retry = llm.requests[1]!.body.messages;
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: '{"structure": [ oops' });
    expect(retry.at(-1)?.content).toMatch(/not valid: not JSON/);
    expect(output.structure[0]?.name).toBe('title');
    expect(output.usage).toEqual({ promptTokens: 200, completionTokens: 40 });
  });

  it('retries on a reply that breaks the field schema', async () => {
    const badType = { structure: [{ ...proposed.structure[0], type: 'text' }] };
    llm.script([{ json: badType }, { json: proposed }]);
    const output = await model().generate(input);
    expect(llm.requests[1]!.body.messages.at(-1)?.content).toMatch(/structure\.0\.type/);
    expect(output.structure).toHaveLength(3);
  });

  it('fails with MODEL_FAILED after two invalid replies', async () => {
    llm.script(['not json', { json: { structure: [] } }]);
    const error = await model()
      .generate(input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagejsonError);
    expect((error as PagejsonError).code).toBe('MODEL_FAILED');
    expect((error as PagejsonError).message).toMatch(/invalid answer twice: structure: the structure needs at least one field/);
    expect(llm.requests).toHaveLength(2);
  });

  it('reports an HTTP failure of the endpoint as MODEL_FAILED', async () => {
    llm.script([{ status: 503, error: 'overloaded' }]);
    const error = await model()
      .generate(input)
      .catch((e: unknown) => e);
    expect((error as PagejsonError).code).toBe('MODEL_FAILED');
    expect((error as PagejsonError).message).toMatch(/HTTP 503/);
  });

  it("fills model fields at retrieval with the fields' JSON Schema, validated with ajv and retried once", async () => {
    const jsonSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      required: ['summary'],
      properties: { summary: { type: ['string', 'null'] } },
    };
    llm.script([{ json: { summary: 42 } }, { json: { summary: 'Thirty lamps' } }]);
    const output = await model().fill({
      sectionHtml: section,
      pageUrl: input.pageUrl,
      fields: [{ name: 'summary', type: 'string', description: 'one-line summary' }],
      jsonSchema,
      rule: null,
    });
    expect(output.values).toEqual({ summary: 'Thirty lamps' });
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[0]!.body.response_format?.json_schema?.schema).toEqual(jsonSchema);
    expect(userContent(llm.requests[0]!)).toContain('summary (string): one-line summary');
    expect(llm.requests[1]!.body.messages.at(-1)?.content).toMatch(/\/summary must be string,null/);
    expect(output.usage).toEqual({ promptTokens: 200, completionTokens: 40 });
  });
});
