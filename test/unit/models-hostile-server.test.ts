import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createOpenAiModel, type OpenAiModelOptions } from '../../src/core/models/openai.js';
import { forgetFormats } from '../../src/core/models/openai-formats.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';

/**
 * Issue 45, items 4 and 5: a model server that redirects elsewhere (the entry's secret headers must not follow),
 * answers hundreds of megabytes (bounded before it is read whole or parsed), or trickles its answer past the
 * timeout (said as a timeout). Two fake servers: the model's, and "elsewhere", which records what reaches it.
 */
const input = {
  sectionHtml: '<section><h1 class="title">Lamps</h1></section>',
  pageHtml: '<html><body><section><h1 class="title">Lamps</h1></section></body></html>',
  pageUrl: 'http://127.0.0.1/lamps',
  selector: 'body',
  rule: null,
};
const reply = { structure: [replyField('title', 'string', 'h1.title')] };
const SECRET = 'proxy-key-must-stay-home-77';

describe('a hostile model server', () => {
  let llm: FakeLlm;
  let elsewhere: FakeLlm;
  beforeAll(async () => {
    [llm, elsewhere] = await Promise.all([startFakeLlm(), startFakeLlm()]);
  });
  afterAll(async () => {
    await Promise.all([llm.close(), elsewhere.close()]);
  });
  beforeEach(() => {
    llm.requests.length = 0;
    elsewhere.requests.length = 0;
    forgetFormats();
  });
  const model = (extra: Partial<OpenAiModelOptions> = {}) =>
    createOpenAiModel({
      name: 'local',
      baseURL: llm.baseURL,
      apiKey: 'k',
      model: 'small-1',
      maxRetries: 0,
      headers: { 'x-proxy-key': SECRET },
      ...extra,
    });
  const failure = async (extra: Partial<OpenAiModelOptions> = {}): Promise<PagejsonError> => {
    const error = await model(extra)
      .generate(input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagejsonError);
    return error as PagejsonError;
  };

  it('does not follow a redirect to another origin: the entry headers never reach it', async () => {
    // Another port is another origin: the fake server "elsewhere" stands for a host of the attacker's choosing.
    llm.script(() => ({ redirect: `${elsewhere.baseURL}/chat/completions` }));
    elsewhere.script(() => ({ json: reply }));
    const error = await failure();
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.message).toMatch(
      /^model local redirected to another origin \(127\.0\.0\.1:\d+\): not followed, its headers would go there$/,
    );
    expect(elsewhere.requests).toHaveLength(0);
    expect(JSON.stringify({ m: error.message, h: error.hint, c: error.context })).not.toContain(SECRET);
  });

  it('follows a 307 within its own origin, with its headers', async () => {
    let first = true;
    llm.script(() => {
      if (!first) return { json: reply };
      first = false;
      return { redirect: `${llm.baseURL}/chat/completions?moved=1` };
    });
    const proposal = await model().generate(input);
    expect(proposal.structure).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.headers['x-proxy-key']).toBe(SECRET);
  });

  it.each([200, 500])('stops reading a %i answer past maxAnswerBytes: "the model answered too much"', async (status) => {
    llm.script(() => ({ huge: 64 * 1024 * 1024, status }));
    const error = await failure({ maxAnswerBytes: 256 * 1024 });
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.message).toBe('model local: the model answered too much (more than 262144 bytes)');
    expect(error.hint).toContain('maxAnswerBytes');
  });

  it('fails as a timeout when the answer trickles past timeoutMs after its headers', async () => {
    llm.script(() => ({ trickleEveryMs: 20 }));
    const error = await failure({ timeoutMs: 300 });
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.message).toMatch(/^model local timed out: no answer within 300 ms/);
  });
});
