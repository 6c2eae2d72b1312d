import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * Refused requests (400 bad body or variables, 413 body too large, 415 not JSON, 429 over the key's failure
 * rate) are requests of their endpoint and key in usage, and errors, at no cost; a request that names no
 * endpoint the key may call has no row to go to.
 */
let site: FixtureSite;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;

// Noon (UTC) of today: usage rows are per day.
const DAY_MS = 24 * 60 * 60_000;
const clock = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject(
    [
      pageConfig('search', `${site.origin}/daemon/echo?name={{ query }}`, {
        variables: { query: { example: 'tea', pattern: '^[a-z]+$' } },
      }),
      pageConfig('other', `${site.origin}/daemon/echo?name=other`),
    ],
    { limits: { failedRetrievalsPerMinute: 3 } },
  );
  runtime = await createRuntime(temp.project, { watch: false, memoryCacheOnly: true, now: () => new Date(clock) });
  app = await buildApp(runtime, { logger: false });
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await site?.close();
  await temp?.cleanup();
});

describe('refused requests in usage', () => {
  it('counts 400, 413, 415 and 429 per endpoint and key as requests and errors, without credits', async () => {
    const { key, id } = await issueKey(runtime.store);
    const { key: otherKey, id: otherId } = await issueKey(runtime.store);
    const post = (body: string, contentType = 'application/json', apikey = key) =>
      app.inject({ method: 'POST', url: '/external/search', headers: { apikey, 'content-type': contentType }, payload: body });
    const statuses = [
      (await post('{"query": 42}')).statusCode,
      (await post('not json')).statusCode,
      (await post('query=tea', 'application/x-www-form-urlencoded')).statusCode,
      (await post(JSON.stringify({ query: 'x'.repeat(20_000) }))).statusCode,
      (await post('{"query": "TEA!"}')).statusCode,
    ];
    expect(statuses).toEqual([400, 400, 415, 413, 400]);
    // Three failures counted against the key this minute (the 400s): the next request is refused with 429.
    expect((await post('{"query": "tea"}')).statusCode).toBe(429);
    // Another key's refusal is its own row; a request for an endpoint that does not exist has none.
    expect((await post('[]', 'application/json', otherKey)).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/external/nothing', headers: { apikey: key } })).statusCode).toBe(404);

    await runtime.retrieval.flushUsage();
    const rows = await runtime.store.usage({});
    expect(rows.map(({ apiId, keyId, requests, errors, milliCredits }) => ({ apiId, keyId, requests, errors, milliCredits }))).toEqual(
      expect.arrayContaining([
        { apiId: 'search', keyId: id, requests: 6, errors: 6, milliCredits: 0 },
        { apiId: 'search', keyId: otherId, requests: 1, errors: 1, milliCredits: 0 },
      ]),
    );
    expect(rows).toHaveLength(2);
  });
});
