import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repairIsolated } from '../../src/core/health/isolated-repair.js';
import { ensureBuilt } from '../support/build-once.js';
import { ApiConfigSchema } from '../../src/core/config/index.js';
import { proposeRepair } from '../../src/core/health/index.js';
import { createOpenAiModel } from '../../src/core/models/openai.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { shopHtml } from '../support/site-routes/heal-trust.js';

/**
 * Issue 52, item 4: the tokens a model spends on a repair come back with the proposal, so `heal` records them in
 * the endpoint's usage (docs/models.md, "Tokens") as run and check do; a repair's thread remembers the response
 * formats a server refused in the data dir, as generation does, and does not ask for them again.
 */
let llm: FakeLlm;
beforeAll(async () => {
  await ensureBuilt();
  llm = await startFakeLlm();
}, 600_000);
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

describe("a repair's thread", () => {
  it('does not ask a server again for a response format it refused (remembered in the data dir)', { timeout: 60_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pagejson-heal-formats-'));
    try {
      llm.behave({ jsonSchema: 'refuse' });
      llm.requests.length = 0;
      const reply = { json: { structure: [replyField('heading', 'string', 'h1')] } };
      llm.script([reply, reply]);
      const html = shopHtml('1', 1);
      const heading = /<h1[^>]*>([^<]*)<\/h1>/.exec(html)![1]!.trim();
      const config = ApiConfigSchema.parse({
        apiId: 'shop',
        url: 'http://127.0.0.1:9/trust/shop',
        model: 'local',
        structure: [{ name: 'heading', type: 'string', selector: 'h1.gone' }],
      });
      const settings = {
        models: { local: { baseURL: llm.baseURL, model: 'm', maxRetries: 0 } },
        env: {},
        fetchTimeoutMs: 20_000,
        extractionTimeoutMs: 20_000,
        dataDir,
      };
      const repair = () => repairIsolated({ config, html, pageUrl: 'http://127.0.0.1:9/trust/shop', expected: { heading } }, settings);
      await repair();
      const first = llm.requests.map((request) => request.body.response_format?.type);
      expect(first).toEqual(['json_schema', 'json_object']);
      llm.requests.length = 0;
      await repair();
      expect(llm.requests.map((request) => request.body.response_format?.type)).toEqual(['json_object']);
    } finally {
      llm.behave({ jsonSchema: 'accept' });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
