import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfigRegistry, type ConfigRegistry } from '../../src/core/registry/config-registry.js';
import { createRetrievalService } from '../../src/core/retrieval/retrieval-service.js';
import { retrieve } from '../../src/core/retrieval/retrieve.js';
import { createScraperPool, type ScraperPool } from '../../src/core/fetch/scrapers/index.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { createResponseCache, type ResponseCache } from '../../src/core/cache/response-cache.js';
import type { StateStore } from '../../src/core/state/types.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * A request that spent credits must end on the path that refunds them, even when the work behind it has no
 * deadline short enough (a slow model fill after a slow fetch): the retrieval's answer deadline turns it into
 * a refunded 502 before the daemon's handler timeout could answer a 503 that keeps the credits.
 */
let site: FixtureSite;
let temp: TempProject;
let store: StateStore;
let cache: ResponseCache;
let configs: ConfigRegistry;
let pool: ScraperPool;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([pageConfig('hang', `${site.origin}/faults/hang`, { caching: false })]);
  store = await createLowdbStore({ file: join(temp.root, 'state.json') });
  cache = await createResponseCache({ freshMs: 60_000, keepMs: 3_600_000, memoryEntries: 10 });
  configs = await createConfigRegistry({ dir: temp.project.configsDir, watch: false });
  // The source hangs and the scraper's own deadline (3 s) is far longer than the answer deadline.
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

describe('the answer deadline', () => {
  it('fails a request whose data does not come in time as a timeout and refunds its credits', async () => {
    const service = createRetrievalService({
      configs,
      store,
      cache,
      load: (config, values) => retrieve(config, values, { scraperFor: (n) => pool.get(n) }),
      credits: { enabled: true, freeMilliCredits: 0 },
      now: () => new Date(),
      answerTimeoutMs: 300,
    });
    const { key, account } = await issueKey(store, { freeCredits: 10 });
    const before = (await store.getAccount(account))!.balance;
    await expect(service.retrieve({ apiId: 'hang', apikey: key, method: 'GET', body: undefined, query: {} })).rejects.toMatchObject({
      code: 'FETCH_TIMEOUT',
      message: 'timed out after 300 ms',
      context: { creditsRemaining: before },
    });
    expect((await store.getAccount(account))!.balance).toBe(before);
    expect(site.hitCount('/faults/hang')).toBe(1);
    await service.close();
  });
});
