import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Jobs through the daemon's HTTP routes (issue 50): `POST /jobs` with the apikey header answers 202 in the
 * envelope, the job runs each input through the same retrieval as /external (credits once per item, failures
 * refunded), `GET /jobs/{id}` gives the state and counts, `/results` one line per input (NDJSON, CSV, only
 * errors), a key sees only its own jobs and starts them only on endpoints in its scope, running out of credits
 * stops the job with the no-credits message, and a cancelled job ends every input in a line.
 */
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;

interface Envelope<T> {
  data: T;
  errors: Array<{ message: string; code: string }> | null;
}
interface JobView {
  id: string;
  state: string;
  total: number;
  done: number;
  failed: number;
  skipped: number;
  credits: number;
  reason?: string;
}

beforeAll(async () => {
  site = await startFixtureSite();
  const item = {
    apiId: 'item',
    url: `${site.origin}/jobs/item?id={{id}}`,
    caching: false,
    variables: { id: { example: '1' } },
    structure: [
      { name: 'title', type: 'string' as const, selector: 'h1' },
      { name: 'kind', type: 'string' as const, selector: 'p.kind' },
    ],
  };
  const other = { ...item, apiId: 'other' };
  // Generous bounds: a busy test machine starts extraction threads slowly, and that is no failure here.
  // No minimum delay between job requests: politeness has its own tests (jobs-politeness).
  temp = await makeProject([item, other], { extraction: { timeoutMs: 60_000 }, fetch: { timeoutMs: 60_000 }, jobs: { minDelayMs: 0 } });
  server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
  await site?.close();
});

async function call<T>(
  key: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Envelope<T> }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(key ? { apikey: key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Envelope<T> };
}

async function finished(key: string, id: string): Promise<JobView> {
  return vi.waitFor(
    async () => {
      const { body } = await call<JobView>(key, 'GET', `/jobs/${id}`);
      if (!['done', 'failed', 'cancelled'].includes(body.data.state)) throw new Error(`still ${body.data.state}`);
      return body.data;
    },
    { timeout: 60_000, interval: 100 },
  );
}

async function results(key: string, id: string, query = ''): Promise<string> {
  const response = await fetch(`${server.url}/jobs/${id}/results${query}`, { headers: { apikey: key } });
  expect(response.status).toBe(200);
  return response.text();
}

describe('POST /jobs', () => {
  it('runs every input once, charges each retrieval once and refunds the failed ones', async () => {
    const { key, account } = await issueKey(server.runtime.store, { freeCredits: 10, account: 'runs' });
    site.resetHits();
    const started = await call<{ id: string; state: string; total: number }>(key, 'POST', '/jobs', {
      apiId: 'item',
      inputs: [{ id: 'a' }, { id: 'b' }, { id: '404' }, { id: 'c' }, { nope: 'x' }],
      concurrency: 2,
    });
    expect(started.status).toBe(202);
    expect(started.body.errors).toBeNull();
    expect(started.body.data).toMatchObject({ state: 'queued', total: 5 });
    expect(started.body.data.id).toMatch(/^j_[0-9A-Za-z]{16}$/);
    const job = await finished(key, started.body.data.id);
    expect(job, await results(key, job.id)).toMatchObject({ state: 'done', total: 5, done: 3, failed: 1, skipped: 1, credits: 1.2 });
    expect(job.done + job.failed + job.skipped).toBe(job.total);
    // 3 answers at 0.4; the 404 was refunded; the skipped input was never fetched.
    expect((await server.runtime.store.getAccount(account))!.balance).toBe(10_000 - 1_200);
    expect(site.hitCount('/jobs/item')).toBe(4);

    const lines = (await results(key, job.id))
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            index: number;
            outcome: string;
            input: unknown;
            data: unknown;
            errors: unknown;
            health: unknown;
            fetchedAt: unknown;
          },
      );
    expect(lines).toHaveLength(5);
    expect(new Set(lines.map((line) => line.index))).toEqual(new Set([0, 1, 2, 3, 4]));
    const byIndex = new Map(lines.map((line) => [line.index, line]));
    expect(byIndex.get(0)).toMatchObject({
      input: { id: 'a' },
      outcome: 'data',
      data: { title: 'Item a', kind: 'item' },
      errors: null,
      health: 'healthy',
    });
    expect(byIndex.get(2)).toMatchObject({
      outcome: 'error',
      data: null,
      errors: [{ code: 'FETCH_STATUS', message: 'source page could not be fetched: the source page was not found (404)' }],
    });
    expect(byIndex.get(4)).toMatchObject({ outcome: 'skipped', errors: [{ code: 'VARIABLE_MISSING', message: 'missing variable: id' }] });

    const failedOnly = (await results(key, job.id, '?errors=only')).trim().split('\n');
    expect(failedOnly.map((line) => (JSON.parse(line) as { index: number }).index).sort()).toEqual([2, 4]);
    const csv = (await results(key, job.id, '?format=csv')).trim().split('\n');
    expect(csv[0]).toBe('index,outcome,input.id,input.nope,data.title,data.kind,error,health,fetchedAt');
    expect(csv).toHaveLength(6);
    const json = JSON.parse(await results(key, job.id, '?format=json')) as unknown[];
    expect(json).toHaveLength(5);
    // /metrics counts job items by outcome, and finished jobs by state.
    const metrics = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    expect(metrics).toContain('pagejson_job_items_total{api_id="item",outcome="data"} 3');
    expect(metrics).toContain('pagejson_job_items_total{api_id="item",outcome="error"} 1');
    expect(metrics).toContain('pagejson_job_items_total{api_id="item",outcome="skipped"} 1');
    expect(metrics).toContain('pagejson_jobs_finished_total{state="done"} 1');
  });

  it('stops a job that runs out of credits with the no-credits message, every input still in a line', async () => {
    const { key } = await issueKey(server.runtime.store, { freeCredits: 0.8, account: 'short' });
    const started = await call<{ id: string }>(key, 'POST', '/jobs', {
      apiId: 'item',
      inputs: ['n1', 'n2', 'n3', 'n4', 'n5'].map((id) => ({ id })),
      concurrency: 1,
    });
    const job = await finished(key, started.body.data.id);
    expect(job).toMatchObject({
      state: 'failed',
      reason: 'No credits left ⚠. Please buy more credits',
      total: 5,
      done: 2,
      failed: 3,
      credits: 0.8,
    });
    const lines = (await results(key, job.id)).trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.filter((line) => line.includes('"NO_CREDITS"'))).toHaveLength(3);
  });

  it('cancels a job: the items not run end as cancelled lines', async () => {
    const { key } = await issueKey(server.runtime.store, { freeCredits: 10 });
    site.resetHits();
    const started = await call<{ id: string }>(key, 'POST', '/jobs', {
      apiId: 'item',
      urls: ['s1', 's2', 's3', 's4', 's5', 's6'].map((id) => `${site.origin}/jobs/item?id=slow${id}&ms=400`),
      concurrency: 1,
    });
    await site.whenHits('/jobs/item', 1);
    const cancelled = await call<JobView>(key, 'DELETE', `/jobs/${started.body.data.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.state).toBe('cancelled');
    const job = await finished(key, started.body.data.id);
    expect(job.done + job.failed + job.skipped).toBe(6);
    expect(job.skipped).toBeGreaterThanOrEqual(4);
    const lines = (await results(key, job.id)).trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines.filter((line) => line.includes('"CANCELLED"')).length).toBe(job.skipped);
  });
});

describe('keys and jobs', () => {
  it('a key sees only its own jobs and starts them only on endpoints in its scope', async () => {
    const owner = await issueKey(server.runtime.store, { freeCredits: 10 });
    const stranger = await issueKey(server.runtime.store, { freeCredits: 10 });
    const scoped = await issueKey(server.runtime.store, { scope: ['other'], freeCredits: 10 });
    const started = await call<{ id: string }>(owner.key, 'POST', '/jobs', { apiId: 'item', inputs: [{ id: 'k1' }] });
    const id = started.body.data.id;
    await finished(owner.key, id);
    for (const [method, path] of [
      ['GET', `/jobs/${id}`],
      ['GET', `/jobs/${id}/results`],
      ['DELETE', `/jobs/${id}`],
    ] as const) {
      const answer = await call(stranger.key, method, path);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ data: null, errors: [{ message: 'no such job', code: 'JOB_NOT_FOUND' }] });
    }
    expect((await call<unknown[]>(stranger.key, 'GET', '/jobs')).body.data).toEqual([]);
    expect((await call<Array<{ id: string }>>(owner.key, 'GET', '/jobs')).body.data.map((job) => job.id)).toEqual([id]);
    const outside = await call(scoped.key, 'POST', '/jobs', { apiId: 'item', inputs: [{ id: '1' }] });
    expect(outside).toEqual({ status: 404, body: { data: null, errors: [{ message: 'no data', code: 'NO_DATA' }] } });
    const fromOutside = await call(scoped.key, 'POST', '/jobs', { apiId: 'other', from: { apiId: 'item', field: 'x[].url' } });
    expect(fromOutside.status).toBe(404);
    expect((await call(undefined, 'GET', '/jobs')).status).toBe(401);
    expect((await call('pj_nothing', 'GET', `/jobs/${id}`)).status).toBe(401);
  });

  it('says what is wrong with a job body', async () => {
    const { key } = await issueKey(server.runtime.store);
    const two = await call(key, 'POST', '/jobs', { apiId: 'item', inputs: [], urls: [] });
    expect(two.status).toBe(400);
    expect(two.body.errors).toEqual([{ message: 'the job takes one input source, not inputs and urls', code: 'JOB_INVALID' }]);
    const none = await call(key, 'POST', '/jobs', { apiId: 'item' });
    expect(none.body.errors![0]!.message).toBe('the job names no inputs');
    const notString = await call(key, 'POST', '/jobs', { apiId: 'item', inputs: [{ id: 7 }] });
    expect(notString.body.errors![0]!.message).toBe('inputs[0]: variable "id" must be a string');
    const concurrency = await call(key, 'POST', '/jobs', { apiId: 'item', inputs: [], concurrency: 0 });
    expect(concurrency.body.errors![0]!.message).toBe('concurrency must be a whole number from 1 to 64');
    expect((await call(key, 'GET', '/jobs/..%2F..%2Fstate.json')).status).toBe(404);
  });
});
