import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfigRegistry, type ConfigRegistry } from '../../src/core/registry/config-registry.js';
import { createRetrievalService, type RetrievalService } from '../../src/core/retrieval/retrieval-service.js';
import { RETRIEVAL_STAGES } from '../../src/core/retrieval/stages.js';
import { retrieve } from '../../src/core/retrieval/retrieve.js';
import { createScraperPool, type ScraperPool } from '../../src/core/fetch/scrapers/index.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { createResponseCache, type ResponseCache } from '../../src/core/cache/response-cache.js';
import type { StateStore } from '../../src/core/state/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * Retrieval as a list of stages (src/core/retrieval/stages.ts) over a real lowdb store, cache, config registry,
 * scraper pool and the fixture site: the order of the list, what reaches the load, when a body is read, and
 * which failures count against a key.
 */
let site: FixtureSite;
let temp: TempProject;
let store: StateStore;
let cache: ResponseCache;
let configs: ConfigRegistry;
let pool: ScraperPool;
const loadedUrls: string[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([
    pageConfig('named', `${site.origin}/daemon/echo?name={{ name }}`, {
      caching: false,
      variables: { name: { example: 'x', pattern: '^[a-z]{1,8}$' } },
    }),
  ]);
  store = await createLowdbStore({ file: join(temp.root, 'state.json') });
  cache = await createResponseCache({ freshMs: 60_000, keepMs: 3_600_000, memoryEntries: 10 });
  configs = await createConfigRegistry({ dir: temp.project.configsDir, watch: false });
  pool = createScraperPool({ timeoutMs: 3_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 });
});

afterAll(async () => {
  configs?.close();
  await pool?.close();
  await cache?.close();
  await store?.close();
  await site?.close();
  await temp?.cleanup();
});

function service(failedRetrievalsPerMinute = 30): RetrievalService {
  return createRetrievalService({
    configs,
    store,
    cache,
    load: (config, values, sourceUrl) => {
      loadedUrls.push(sourceUrl);
      return retrieve(config, values, { scraperFor: (n) => pool.get(n) }, { sourceUrl });
    },
    credits: { enabled: true, freeMilliCredits: 0 },
    now: () => new Date(),
    failedRetrievalsPerMinute,
  });
}

describe('the stage list', () => {
  it('runs in the order of the wire table', () => {
    expect(RETRIEVAL_STAGES.map((stage) => stage.name)).toEqual([
      'authenticate',
      'resolve',
      'readInput',
      'locate',
      'price',
      'lookUp',
      'limit',
      'charge',
      'load',
      'settle',
      'record',
    ]);
  });

  it('hands the load the URL its locate stage resolved', async () => {
    const retrieval = service();
    const { key } = await issueKey(store);
    loadedUrls.length = 0;
    const answer = await retrieval.retrieve({ apiId: 'named', apikey: key, method: 'GET', body: undefined, query: { name: 'abc' } });
    expect(answer.cache).toBe('BYPASS');
    expect(loadedUrls).toEqual([`${site.origin}/daemon/echo?name=abc`]);
    await retrieval.close();
  });

  it('reads a POST body only once the key and endpoint rows have passed', async () => {
    const retrieval = service();
    const { key } = await issueKey(store);
    const reads: number[] = [];
    const body = {
      contentType: 'application/json',
      read: async (maxBytes: number) => (reads.push(maxBytes), Buffer.from('{"name":"abc"}')),
    };
    await expect(retrieval.retrieve({ apiId: 'named', apikey: 'pj_not-a-key', method: 'POST', body, query: {} })).rejects.toMatchObject({
      code: 'KEY_INVALID',
    });
    await expect(retrieval.retrieve({ apiId: 'nope', apikey: key, method: 'POST', body, query: {} })).rejects.toMatchObject({
      code: 'NO_DATA',
    });
    expect(reads).toEqual([]);
    const answer = await retrieval.retrieve({ apiId: 'named', apikey: key, method: 'POST', body, query: {} });
    expect(reads).toEqual([16 * 1024]);
    expect(JSON.parse(answer.body).data.title).toBe('abc');
    await retrieval.close();
  });
});

describe('failures that count against a key', () => {
  it("counts bad requests (400): past the limit the key's uncached requests get 429, another key's do not", async () => {
    const retrieval = service(2);
    const { key } = await issueKey(store);
    const ask = (apikey: string, name: unknown) =>
      retrieval.retrieve({
        apiId: 'named',
        apikey,
        method: 'POST',
        body: { raw: Buffer.from(JSON.stringify({ name })), contentType: 'application/json' },
        query: {},
      });
    await expect(ask(key, 'UPPER')).rejects.toMatchObject({ code: 'VARIABLE_PATTERN' });
    await expect(
      retrieval.retrieve({
        apiId: 'named',
        apikey: key,
        method: 'POST',
        body: { raw: Buffer.from('{"name":'), contentType: 'application/json' },
        query: {},
      }),
    ).rejects.toMatchObject({ code: 'BODY_INVALID_JSON' });
    const before = (await store.getAccount('default'))!.balance;
    await expect(ask(key, 'abc')).rejects.toMatchObject({ code: 'RATE_LIMITED', context: { retryAfterSeconds: expect.any(Number) } });
    // Refused before the charge: nothing was taken.
    expect((await store.getAccount('default'))!.balance).toBe(before);
    const other = await issueKey(store);
    expect((await ask(other.key, 'abc')).cache).toBe('BYPASS');
    await retrieval.close();
  });
});
