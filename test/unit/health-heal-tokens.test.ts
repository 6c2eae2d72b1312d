import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConfigSchema } from '../../src/core/config/index.js';
import { proposeRepair } from '../../src/core/health/index.js';
import { createOpenAiModel } from '../../src/core/models/openai.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { shopHtml } from '../support/site-routes/heal-trust.js';

/**
 * Issue 52, item 4: the tokens a model spends on a repair come back with the proposal, so `heal` records them in
 * the endpoint's usage (docs/models.md, "Tokens") as run and check do.
 */
let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm?.close();
});

describe("a model's repair", () => {
  it('carries the tokens its model spent', async () => {
    const config = ApiConfigSchema.parse({
      apiId: 'shop',
      url: 'http://127.0.0.1:9/trust/shop',
      model: 'local',
      structure: [{ name: 'heading', type: 'string', selector: 'h1.gone' }],
    });
    llm.script([{ json: { structure: [replyField('heading', 'string', 'h1')] }, usage: { prompt_tokens: 1_234, completion_tokens: 56 } }]);
    const model = createOpenAiModel({ name: 'local', baseURL: llm.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 });
    const html = shopHtml('1', 1);
    const heading = /<h1[^>]*>([^<]*)<\/h1>/.exec(html)![1]!.trim();
    const proposal = await proposeRepair({ config, html, pageUrl: 'http://127.0.0.1:9/trust/shop', expected: { heading }, model });
    expect(llm.requests).toHaveLength(1);
    expect(proposal.usage).toEqual({ promptTokens: 1_234, completionTokens: 56 });
  });
});
