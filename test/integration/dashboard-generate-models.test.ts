import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import type { ProjectSettingsInput } from '../../src/core/config/schema.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * The dashboard's generation (its worker thread, the daemon's resolver settings) with the model servers people
 * run (docs/models.md): a server refusing json_schema with vLLM's 400 body, a hanging one, and the tokens of
 * every call in the dashboard's usage and /metrics.
 */
let site: FixtureSite;
let llm: FakeLlm;
let temp: TempProject;
let server: RunningServer;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  site = await startFixtureSite();
  llm = await startFakeLlm();
});
afterEach(async () => {
  await server?.close();
  await temp?.cleanup();
});
afterAll(async () => {
  await llm?.close();
  await site?.close();
});

async function start(settings: ProjectSettingsInput): Promise<void> {
  temp = await makeProject([], settings);
  server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
  const link = server.app.dashboardLoginLink()!;
  const answer = await fetch(link.url.replace(/^http:\/\/[^/]+/, server.url), { redirect: 'manual' });
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrf } = (await (await fetch(`${server.url}/ui/api/session`, { headers: { cookie } })).json()) as { csrf: string };
  session = { cookie, csrf };
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const answer = await fetch(`${server.url}/ui/api${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      ...(method === 'POST' ? { 'content-type': 'application/json', 'x-pagejson-csrf': session.csrf } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, json: (await answer.json()) as T };
}

const heading = { structure: [replyField('heading', 'string', 'h1')] };

describe("the dashboard's generation with the servers people run", () => {
  it("falls back from vLLM's refusal of json_schema, keeps the format in the data dir, and its tokens reach usage and /metrics", async () => {
    llm.behave({ jsonSchema: 'refuse', refusal: 'vllm', usage: 'counted' });
    llm.requests.length = 0;
    llm.script(['I think the page is a garden shop.', { json: heading }]);
    await start({ models: { vllm: { baseURL: llm.baseURL, model: 'qwen-small', maxRetries: 0 } } });
    const proposal = await call<{ proposalId: string; sample: Record<string, unknown> }>('POST', '/generate', {
      url: `${site.origin}/shop/garden/items`,
      model: 'vllm',
      apiId: 'garden',
    });
    expect(proposal.status).toBe(200);
    expect(proposal.json.sample).toEqual({ heading: 'garden shop' });
    expect(llm.requests.map((request) => request.body.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(llm.requests.at(-1)!.body.messages.at(-1)!.content).toMatch(/the reply is prose, not JSON/);
    const kept = JSON.parse(await readFile(join(temp.project.dataDir, 'model-formats.json'), 'utf8')) as unknown;
    expect(kept).toEqual({ version: 1, models: [{ baseURL: llm.baseURL, model: 'qwen-small', format: 'json_object' }] });

    const saved = await call<{ written: boolean }>('POST', `/generate/${proposal.json.proposalId}/edits`, { operations: [], save: true });
    expect(saved.json.written).toBe(true);
    const usage = await call<{
      totals: { promptTokens: number; completionTokens: number };
      byEndpoint: Array<{ id: string; totals: unknown }>;
    }>('GET', '/usage?unit=day');
    expect(usage.json.totals).toMatchObject({ promptTokens: llm.reported.promptTokens, completionTokens: llm.reported.completionTokens });
    expect(usage.json.byEndpoint).toEqual([
      { id: 'garden', totals: expect.objectContaining({ promptTokens: llm.reported.promptTokens, generationMilliCredits: 250 }) },
    ]);
    const metrics = await server.app.metrics.registry.metrics();
    expect(metrics).toContain(`pagejson_model_tokens_total{api_id="garden",type="prompt"} ${llm.reported.promptTokens}`);
  });

  it('answers a hanging model with its timeout in words, within its own settings, and charges nothing', async () => {
    llm.behave({});
    llm.requests.length = 0;
    llm.script(() => ({ hang: true }));
    await start({ models: { stuck: { baseURL: llm.baseURL, model: 'm', timeoutMs: 300, maxRetries: 0 } } });
    const before = await call<{ balance: number }>('GET', '/generate/options');
    const answer = await call<{ error: { code: string; message: string; hint: string } }>('POST', '/generate', {
      url: `${site.origin}/shop/garden/items`,
      model: 'stuck',
      apiId: 'stuck',
    });
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(answer.json.error.message).toBe('model stuck timed out: no answer within 300 ms (1 try)');
    expect(answer.json.error.hint).toContain('models.stuck.timeoutMs');
    expect((await call<{ balance: number }>('GET', '/generate/options')).json.balance).toBe(before.json.balance);
    expect(await server.runtime.store.usage({ apiId: 'stuck' })).toEqual([]);
  });

  it('records the tokens of a model that failed after answering and of a proposal never saved, and charges neither', async () => {
    llm.behave({ usage: 'counted' });
    llm.requests.length = 0;
    llm.script(['no JSON here', 'still none', { json: heading }]);
    await start({ models: { chatty: { baseURL: llm.baseURL, model: 'm', maxRetries: 0 } } });
    const before = (await call<{ balance: number }>('GET', '/generate/options')).json.balance;
    const failed = await call<{ error: { code: string; message: string } }>('POST', '/generate', {
      url: `${site.origin}/shop/garden/items`,
      model: 'chatty',
      apiId: 'failed',
    });
    expect(failed.json.error).toMatchObject({ code: 'MODEL_FAILED', message: expect.stringContaining('gave an invalid answer twice') });
    const spentOnFailure = { ...llm.reported };
    expect(await server.runtime.store.usage({ apiId: 'failed' })).toEqual([
      expect.objectContaining({ keyId: null, requests: 0, milliCredits: 0, ...spentOnFailure }),
    ]);

    const proposal = await call<{ proposalId: string }>('POST', '/generate', {
      url: `${site.origin}/shop/garden/items`,
      model: 'chatty',
      apiId: 'unsaved',
    });
    expect(proposal.status).toBe(200);
    const rows = await server.runtime.store.usage({ apiId: 'unsaved' });
    expect(rows).toEqual([
      expect.objectContaining({ milliCredits: 0, promptTokens: llm.reported.promptTokens - spentOnFailure.promptTokens }),
    ]);
    expect((await call<{ balance: number }>('GET', '/generate/options')).json.balance).toBe(before);
  });
});
