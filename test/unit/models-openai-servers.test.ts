import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createOpenAiModel, type OpenAiModelOptions } from '../../src/core/models/openai.js';
import { FORMATS_FILE, forgetFormats } from '../../src/core/models/openai-formats.js';
import { createModelResolver } from '../../src/core/models/index.js';
import { cleanHtml } from '../../src/core/models/html-cleaner.js';
import { listAfterBlockPage, listAtEndPage } from '../support/big-pages.js';
import { replyField, startFakeLlm, userContent, type FakeLlm, type RecordedRequest } from '../support/fake-llm.js';

/**
 * The OpenAI-compatible model against the fake server misbehaving as real servers do (docs/models.md): formats
 * refused with their real 400 bodies, replies that ignore the format or echo the schema, hanging and slow
 * answers (short configured timeouts, no long sleeps), token counts, headers, and the token budget.
 */

const section = `<section class="catalog"><h1 class="title">Lamps</h1>
  ${Array.from({ length: 12 }, (_, i) => `<article class="card"><h2><a href="/lamp/${i}">Lamp ${i}</a></h2><p class="price">$${i}.50</p></article>`).join('\n')}
</section>`;
const input = {
  sectionHtml: section,
  pageHtml: `<html><head><title>Lamps</title></head><body>${section}</body></html>`,
  pageUrl: 'http://127.0.0.1/lamps',
  selector: 'body',
  rule: null,
};
const reply = {
  structure: [
    replyField('title', 'string', 'h1.title'),
    replyField('lamps', 'array', 'article.card', { fields: [replyField('name', 'string', 'h2 a')] }),
  ],
};

/** Everything a request sends that a server counts as input: its messages and its response format. */
const requestChars = (request: RecordedRequest): number =>
  request.body.messages.reduce((sum, message) => sum + message.content.length, 0) +
  (request.body.response_format ? JSON.stringify(request.body.response_format).length : 0);

describe('OpenAI-compatible model with the servers people run', () => {
  let llm: FakeLlm;
  let dataDir: string;
  beforeAll(async () => {
    llm = await startFakeLlm();
    dataDir = await mkdtemp(join(tmpdir(), 'pagejson-formats-'));
  });
  afterAll(async () => {
    await llm.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    llm.requests.length = 0;
    llm.behave({});
    forgetFormats();
    await rm(join(dataDir, FORMATS_FILE), { force: true });
  });
  const model = (extra: Partial<OpenAiModelOptions> = {}) =>
    createOpenAiModel({ name: 'local', baseURL: llm.baseURL, apiKey: 'k', model: 'small-1', maxRetries: 0, ...extra });

  for (const server of ['openai', 'vllm', 'llamacpp'] as const) {
    it(`falls back to json_object when json_schema is refused (${server}'s 400) and remembers it for the process`, async () => {
      llm.behave({ jsonSchema: 'refuse', refusal: server });
      llm.script([{ json: reply }, { json: reply }]);
      const output = await model().generate(input);
      expect(llm.requests.map((request) => request.body.response_format?.type)).toEqual(['json_schema', 'json_object']);
      // Without structured outputs the schema is said in the prompt.
      expect(llm.requests[1]!.body.messages[0]!.content).toContain('"structure"');
      expect(output.structure.map((field) => field.name)).toEqual(['title', 'lamps']);
      // A second model of the same server and model name in this process asks json_object at once.
      await model().generate(input);
      expect(llm.requests.map((request) => request.body.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    });
  }

  it("falls back to a plain prompt when json_object is refused too (LM Studio's 400 body) and keeps it in the data dir", async () => {
    llm.behave({ jsonSchema: 'refuse', refusal: 'vllm', jsonObject: 'refuse' });
    llm.script([{ json: reply }, { json: reply }]);
    const resolver = () =>
      createModelResolver({ models: { small: { baseURL: llm.baseURL, model: 'small-2', maxRetries: 0 } }, env: {}, dataDir });
    await (await resolver().get('small')).generate(input);
    expect(llm.requests.map((request) => request.body.response_format?.type ?? 'none')).toEqual(['json_schema', 'json_object', 'none']);
    expect(llm.requests[2]!.body.messages[0]!.content).toMatch(/valid against this JSON Schema/);
    const kept = JSON.parse(await readFile(join(dataDir, FORMATS_FILE), 'utf8')) as unknown;
    expect(kept).toEqual({ version: 1, models: [{ baseURL: llm.baseURL, model: 'small-2', format: 'prompt' }] });
    // A later run (this process's memory forgotten) reads the data dir: no refused call again.
    forgetFormats();
    llm.requests.length = 0;
    await (await resolver().get('small')).generate(input);
    expect(llm.requests.map((request) => request.body.response_format?.type ?? 'none')).toEqual(['none']);
  });

  it('ignores a damaged or hostile formats file and asks json_schema first', async () => {
    await writeFile(join(dataDir, FORMATS_FILE), '{"version":1,"models":[{"baseURL":"__proto__","model":"x","format":"evil"}]}');
    llm.script([{ json: reply }]);
    await (
      await createModelResolver({ models: { m: { baseURL: llm.baseURL, model: 'small-3' } }, env: {}, dataDir }).get('m')
    ).generate(input);
    expect(llm.requests[0]!.body.response_format?.type).toBe('json_schema');
    expect(({} as Record<string, unknown>).model).toBeUndefined();
  });

  it('does not fall back on a 400 that is not about the response format', async () => {
    llm.script([{ status: 400, error: "This model's maximum context length is 4096 tokens" }]);
    const error = (await model()
      .generate(input)
      .catch((e: unknown) => e)) as PagejsonError;
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.message).toMatch(/HTTP 400.*maximum context length/);
    expect(llm.requests).toHaveLength(1);
  });

  it("keeps a server's escape sequences out of its error's words", async () => {
    llm.script([{ status: 400, error: 'bad \u001b[31mrequest\u001b[0m\r\nforged: line' }]);
    const error = (await model()
      .generate(input)
      .catch((e: unknown) => e)) as PagejsonError;
    expect(error.message).toContain('bad  [31mrequest [0m  forged: line');
    expect([...error.message].some((char) => char.charCodeAt(0) < 0x20)).toBe(false);
  });

  it('corrects an echoed schema once, saying so, and counts the tokens of both calls', async () => {
    llm.behave({ usage: 'counted' });
    llm.script([{ echoSchema: true }, { json: reply }]);
    const output = await model().generate(input);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toMatch(/the reply is the JSON Schema itself, not an answer/);
    expect(output.structure.map((field) => field.name)).toEqual(['title', 'lamps']);
    expect(output.usage).toEqual(llm.reported);
    expect(output.usage!.promptTokens).toBeGreaterThan(0);
  });

  it('corrects an echoed schema in the prompt-only format too', async () => {
    llm.behave({ jsonSchema: 'refuse', jsonObject: 'refuse' });
    llm.script([{ echoSchema: true }, { json: reply }]);
    await model().generate(input);
    expect(llm.requests.at(-1)!.body.messages.at(-1)!.content).toMatch(/JSON Schema itself/);
  });

  it('corrects prose, prose around a fenced block and a bare fenced block, with the problem said; a reasoning block before the JSON is read', async () => {
    llm.script(['Sure! The page shows lamps with prices.', { json: reply }]);
    await model().generate(input);
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toMatch(/the reply is prose, not JSON/);

    llm.requests.length = 0;
    llm.script([`Here it is:\n\`\`\`json\n${JSON.stringify(reply)}\n\`\`\`\nHope it helps`, { json: reply }]);
    await model().generate(input);
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toMatch(/prose around a fenced code block/);

    llm.requests.length = 0;
    llm.script([`<think>\nThe page lists lamps; a list of cards.\n</think>\n${JSON.stringify(reply)}`]);
    expect((await model().generate(input)).structure).toHaveLength(2);
    expect(llm.requests).toHaveLength(1);

    // A bare fenced block is corrected once, and its data kept when the model fences again.
    const fenced = `\`\`\`json\n${JSON.stringify(reply)}\n\`\`\``;
    llm.requests.length = 0;
    llm.script([fenced, fenced]);
    const output = await model().generate(input);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toMatch(/inside a code fence/);
    expect(output.structure).toHaveLength(2);

    llm.requests.length = 0;
    llm.script([fenced, { json: reply }]);
    expect((await model().generate(input)).structure).toHaveLength(2);
    expect(llm.requests).toHaveLength(2);
  });

  it('fails in bounded time, saying it timed out, when the server hangs (each try within timeoutMs)', async () => {
    llm.script(() => ({ hang: true }));
    const error = (await model({ timeoutMs: 150, maxRetries: 1 })
      .generate(input)
      .catch((e: unknown) => e)) as PagejsonError;
    expect(error).toBeInstanceOf(PagejsonError);
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.message).toMatch(/model local timed out: no answer within 150 ms \(2 tries\)/);
    expect(error.context).toMatchObject({ timedOut: true, usage: { promptTokens: 0, completionTokens: 0 } });
    // The client's own retry, then no format fallback nor correction: a hang is not a refusal.
    expect(llm.requests).toHaveLength(2);
  });

  it('takes a slow answer that comes within the timeout, and times out on one that comes after it', async () => {
    llm.script([{ delayMs: 30, reply: { json: reply } }]);
    expect((await model({ timeoutMs: 2_000 }).generate(input)).structure).toHaveLength(2);
    llm.script([{ delayMs: 1_000, reply: { json: reply } }]);
    await expect(model({ timeoutMs: 100 }).generate(input)).rejects.toThrow(/timed out/);
  });

  it('a server that sends no usage counts as no tokens', async () => {
    llm.behave({ usage: 'none' });
    llm.script([{ json: reply }]);
    expect((await model().generate(input)).usage).toEqual({ promptTokens: 0, completionTokens: 0 });
  });

  it("sends the entry's headers with ${NAME} from the environment, and an unset one is named, never a value", async () => {
    const models = { proxied: { baseURL: llm.baseURL, model: 'm', headers: { 'x-proxy-key': 'Key ${PROXY_KEY}', 'x-tenant': 'shop' } } };
    llm.script([{ status: 401, error: 'bad proxy key' }]);
    const error = (await (
      await createModelResolver({ models, env: { PROXY_KEY: 's3cr3t-value', PAGEJSON_SECRETS: 'PROXY_KEY' } }).get('proxied')
    )
      .generate(input)
      .catch((e: unknown) => e)) as PagejsonError;
    expect(llm.requests[0]!.headers['x-proxy-key']).toBe('Key s3cr3t-value');
    expect(llm.requests[0]!.headers['x-tenant']).toBe('shop');
    expect(JSON.stringify({ message: error.message, hint: error.hint, context: error.context })).not.toContain('s3cr3t-value');

    const unset = (await createModelResolver({ models, env: { PAGEJSON_SECRETS: 'PROXY_KEY' } })
      .get('proxied')
      .catch((e: unknown) => e)) as PagejsonError;
    expect(unset.code).toBe('MODEL_NOT_FOUND');
    expect(unset.message).toMatch(/PROXY_KEY is not set \(used in models\.proxied\.headers\.x-proxy-key\)/);
  });

  it("sends the entry's temperature", async () => {
    llm.script([{ json: reply }]);
    await model({ temperature: 0.7 }).generate(input);
    expect(llm.requests[0]!.body.temperature).toBe(0.7);
  });
});

describe('the token budget', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm.close());
  beforeEach(() => {
    llm.requests.length = 0;
    forgetFormats();
  });

  const jobsReply = {
    structure: [
      replyField('jobs', 'array', 'li.job', { fields: [replyField('title', 'string', 'a'), replyField('salary', 'string', '.salary')] }),
    ],
  };

  it('generates a 3 MB page whose list sits at its end right, every request within maxInputTokens', async () => {
    const html = listAtEndPage();
    expect(html.length).toBeGreaterThan(3_000_000);
    // The first 60,000 cleaned characters, what generation sent before, never reach the list.
    expect(cleanHtml(html)).not.toContain('class="job"');
    llm.script([{ json: jobsReply }]);
    const maxInputTokens = 3_000;
    const output = await createOpenAiModel({
      name: 'small',
      baseURL: llm.baseURL,
      apiKey: 'k',
      model: 'm',
      maxRetries: 0,
      maxInputTokens,
    }).generate({
      sectionHtml: html,
      pageHtml: html,
      pageUrl: 'http://127.0.0.1/careers',
      selector: 'body',
      rule: 'jobs with their salaries',
    });
    for (const request of llm.requests) expect(requestChars(request)).toBeLessThanOrEqual(maxInputTokens * 3);
    const sent = userContent(llm.requests[0]!);
    // The heuristic's proposal names the list, and its region shows the first items.
    expect(sent).toMatch(/- jobs \(array\) "li\.job"/);
    expect(sent).toMatch(/list of 12 items: `li\.job`/);
    expect(sent).toContain('<li class="job"><a href="/jobs/0">Engineer 0</a>');
    // Verified on the page: the list and its fields keep their selectors.
    expect(output.structure).toEqual([
      {
        name: 'jobs',
        type: 'array',
        selector: 'li.job',
        fields: [
          { name: 'title', type: 'string', selector: 'a' },
          { name: 'salary', type: 'string', selector: '.salary' },
        ],
      },
    ]);
  });

  it('shows a 6-item list that comes after a 24,000-row block: every region sampled, not the largest whole (issue 52 item 4)', async () => {
    const html = listAfterBlockPage();
    expect(html.length).toBeGreaterThan(3_400_000);
    llm.script([
      { json: { structure: [replyField('releases', 'array', 'ul.releases > li', { fields: [replyField('name', 'string', 'a')] })] } },
    ]);
    await createOpenAiModel({
      name: 'small',
      baseURL: llm.baseURL,
      apiKey: 'k',
      model: 'm',
      maxRetries: 0,
      maxInputTokens: 8_000,
    }).generate({
      sectionHtml: html,
      pageHtml: html,
      pageUrl: 'http://127.0.0.1/inventory',
      selector: 'body',
      rule: 'the latest releases',
    });
    const sent = userContent(llm.requests[0]!);
    // Both regions, each by a sample: the block's first rows and the list after it.
    expect(sent).toMatch(/list of 24000 items: `tr\.row`/);
    expect(sent).toMatch(/repeated group of 6 × li\.release/);
    expect(sent).toContain('<li class="release"><a href="/r/0">Release 0: Northern Lights</a>');
    expect(sent).not.toContain('R-100<');
  });

  it('shows the section named with --selector first', async () => {
    llm.script([{ json: reply }]);
    const story = Array.from({ length: 3_000 }, (_, i) => `<h2>Chapter ${i}</h2><p>Text ${i}</p>`).join('');
    const page = `<html><body><nav><a href="/">Home</a></nav>${section.replace('</section>', `${story}</section>`)}</body></html>`;
    await createOpenAiModel({ name: 'small', baseURL: llm.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 }).generate({
      ...input,
      pageHtml: page,
      sectionHtml: section.replace('</section>', `${story}</section>`),
      selector: 'section.catalog',
    });
    const sent = userContent(llm.requests[0]!);
    expect(sent).toMatch(/Regions of the page:\n### 1\. the section you chose: `section\.catalog`/);
  });

  it('shows a small page whole, with the proposal, when that is no longer than its regions', async () => {
    llm.script([{ json: reply }]);
    const product =
      '<html><head><title>Lamp</title></head><body><h1>Desk lamp</h1><p class="price">$11.50</p><p class="stock">In stock</p></body></html>';
    await createOpenAiModel({ name: 'small', baseURL: llm.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 }).generate({
      ...input,
      sectionHtml: product,
      pageHtml: product,
    });
    const sent = userContent(llm.requests[0]!);
    expect(sent).toMatch(/- heading \(string\) "h1"/);
    expect(sent).toMatch(/Section HTML \(whole, cleaned\):\n<html>/);
    expect(sent).toContain('<p class="stock">In stock</p>');
  });

  it('keeps a correction within the budget when the invalid reply was long', async () => {
    llm.script(['x'.repeat(50_000), { json: reply }]);
    await createOpenAiModel({
      name: 'small',
      baseURL: llm.baseURL,
      apiKey: 'k',
      model: 'm',
      maxRetries: 0,
      maxInputTokens: 2_000,
    }).generate(input);
    expect(llm.requests).toHaveLength(2);
    for (const request of llm.requests) expect(requestChars(request)).toBeLessThanOrEqual(2_000 * 3);
  });
});
