import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * LLM tokens in usage: a config with a model field on a `models` entry pointing at the fake OpenAI-compatible
 * server. The tokens of a fill go into the usage row of the request that caused it; a background refresh
 * (STALE) records its tokens on their own, with no key and no credits.
 */
let site: FixtureSite;
let llm: FakeLlm;
/** A server that refuses json_schema (OpenAI's 400) and counts tokens: fills go through the format fallback. */
let picky: FakeLlm;
/** A server that never answers. */
let stuck: FakeLlm;
/** A server that answers prose every time, counting its tokens: the fill fails after its one correction. */
let babbler: FakeLlm;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;
// Noon (UTC) of today: the test moves the clock 16 minutes on, and usage rows are per day, so a start in the
// last minutes before midnight would split one key's requests over two rows.
const DAY_MS = 24 * 60 * 60_000;
let clock = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2;

const structure = [
  { name: 'title', type: 'string' as const, selector: 'h1' },
  { name: 'summary', type: 'string' as const, description: 'one sentence about the product' },
];

beforeAll(async () => {
  site = await startFixtureSite();
  llm = await startFakeLlm();
  picky = await startFakeLlm([], { jsonSchema: 'refuse', usage: 'counted' });
  stuck = await startFakeLlm(() => ({ hang: true }));
  babbler = await startFakeLlm(() => 'The summary of this product is that it is a fine lamp.', { usage: 'counted' });
  temp = await makeProject(
    [
      { apiId: 'product', url: `${site.origin}/product.html`, model: 'local', caching: true, structure },
      { apiId: 'live', url: `${site.origin}/product.html`, model: 'local', caching: false, structure },
      { apiId: 'picky', url: `${site.origin}/product.html`, model: 'picky', caching: false, structure },
      { apiId: 'stuck', url: `${site.origin}/product.html`, model: 'stuck', caching: false, structure },
      { apiId: 'babble', url: `${site.origin}/product.html`, model: 'babbler', caching: false, structure },
    ],
    {
      models: {
        local: { baseURL: llm.baseURL, model: 'fake-model' },
        picky: { baseURL: picky.baseURL, model: 'small', maxRetries: 0 },
        stuck: { baseURL: stuck.baseURL, model: 'hangs', timeoutMs: 200, maxRetries: 0 },
        babbler: { baseURL: babbler.baseURL, model: 'prose', maxRetries: 0 },
      },
    },
  );
  runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true, now: () => new Date(clock) });
  app = await buildApp(runtime, { logger: false });
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await llm?.close();
  await picky?.close();
  await stuck?.close();
  await babbler?.close();
  await site?.close();
  await temp?.cleanup();
});

describe('daemon: model tokens in usage', () => {
  it('puts a fill into its request row, and a background refresh into a keyless row without credits', async () => {
    const { key, id } = await issueKey(runtime.store);
    const get = () => app.inject({ method: 'GET', url: '/external/product', headers: { apikey: key } });
    llm.script([
      { json: { summary: 'First fill.' }, usage: { prompt_tokens: 321, completion_tokens: 45 } },
      { json: { summary: 'Refreshed.' }, usage: { prompt_tokens: 50, completion_tokens: 7 } },
    ]);

    const miss = await get();
    expect([miss.statusCode, miss.headers['x-pagejson-cache']]).toEqual([200, 'MISS']);
    expect(miss.json()).toMatchObject({ data: { summary: 'First fill.' } });
    const hit = await get();
    expect(hit.headers['x-pagejson-cache']).toBe('HIT');
    await runtime.retrieval.flushUsage();
    expect(await runtime.store.usage({ apiId: 'product' })).toMatchObject([
      { keyId: id, requests: 2, cacheHits: 1, promptTokens: 321, completionTokens: 45 },
    ]);

    clock += 16 * 60_000;
    const stale = await get();
    expect(stale.headers['x-pagejson-cache']).toBe('STALE');
    await runtime.cache.idle();
    expect(llm.requests).toHaveLength(2);
    await runtime.retrieval.flushUsage();
    const rows = await runtime.store.usage({ apiId: 'product' });
    expect(rows.find((r) => r.keyId === id)).toMatchObject({
      requests: 3,
      cacheHits: 2,
      milliCredits: 3 * 400,
      promptTokens: 321,
      completionTokens: 45,
    });
    expect(rows.find((r) => r.keyId === null)).toMatchObject({
      requests: 0,
      errors: 0,
      milliCredits: 0,
      promptTokens: 50,
      completionTokens: 7,
    });
  });

  it('adds every uncached fill (BYPASS) to the request row', async () => {
    const { key, id } = await issueKey(runtime.store);
    llm.script(() => ({ json: { summary: 'Live.' }, usage: { prompt_tokens: 10, completion_tokens: 2 } }));
    for (let i = 0; i < 2; i++) {
      const response = await app.inject({ method: 'GET', url: '/external/live', headers: { apikey: key } });
      expect([response.statusCode, response.headers['x-pagejson-cache']]).toEqual([200, 'BYPASS']);
    }
    await runtime.retrieval.flushUsage();
    expect(await runtime.store.usage({ apiId: 'live' })).toMatchObject([{ keyId: id, requests: 2, promptTokens: 20, completionTokens: 4 }]);
  });

  it('records the tokens of every call of a fill (a refused format, a correction) in usage and /metrics', async () => {
    const { key, id } = await issueKey(runtime.store);
    picky.script(['The product is a lamp.', { json: { summary: 'A lamp.' } }]);
    const response = await app.inject({ method: 'GET', url: '/external/picky', headers: { apikey: key } });
    expect(response.json()).toMatchObject({ data: { summary: 'A lamp.' } });
    // json_schema refused (no tokens), prose corrected in json_object mode: two answered calls.
    expect(picky.requests.map((request) => request.body.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(picky.reported.promptTokens).toBeGreaterThan(0);
    await runtime.retrieval.flushUsage();
    expect(await runtime.store.usage({ apiId: 'picky' })).toMatchObject([
      { keyId: id, requests: 1, promptTokens: picky.reported.promptTokens, completionTokens: picky.reported.completionTokens },
    ]);
    const metrics = await app.metrics.registry.metrics();
    expect(metrics).toContain(`pagejson_model_tokens_total{api_id="picky",type="prompt"} ${picky.reported.promptTokens}`);
    expect(metrics).toContain(`pagejson_model_tokens_total{api_id="picky",type="completion"} ${picky.reported.completionTokens}`);
    expect(metrics).toMatch(/pagejson_model_tokens_total\{api_id="product",type="prompt"\} 371/);
  });

  it("a fill whose model answers wrongly twice is a refunded 502, and the tokens it spent are in the key's usage", async () => {
    const { key, id, account } = await issueKey(runtime.store);
    const before = (await runtime.store.getAccount(account))!.balance;
    const response = await app.inject({ method: 'GET', url: '/external/babble', headers: { apikey: key } });
    expect(response.statusCode).toBe(502);
    expect(response.json().errors[0]).toMatchObject({ code: 'MODEL_FAILED' });
    // The first reply and its correction: two calls, both counted.
    expect(babbler.requests).toHaveLength(2);
    expect((await runtime.store.getAccount(account))!.balance).toBe(before);
    await runtime.retrieval.flushUsage();
    const [row] = await runtime.store.usage({ apiId: 'babble', keyId: id });
    expect(row).toMatchObject({ requests: 1, errors: 1, milliCredits: 0 });
    expect(row!.promptTokens).toBeGreaterThan(0);
    expect(row!.completionTokens).toBeGreaterThan(0);
  });

  it('a fill from a model that never answers fails within its timeoutMs and the request is refunded', async () => {
    const { key, account } = await issueKey(runtime.store);
    const before = (await runtime.store.getAccount(account))!.balance;
    const response = await app.inject({ method: 'GET', url: '/external/stuck', headers: { apikey: key } });
    expect(response.statusCode).toBe(502);
    expect(response.json().errors[0]).toMatchObject({ code: 'MODEL_FAILED', message: expect.stringContaining('did not answer in time') });
    expect(stuck.requests).toHaveLength(1);
    expect((await runtime.store.getAccount(account))!.balance).toBe(before);
    await runtime.retrieval.flushUsage();
    expect(await runtime.store.usage({ apiId: 'stuck' })).toMatchObject([{ requests: 1, errors: 1, milliCredits: 0, promptTokens: 0 }]);
  });
});
