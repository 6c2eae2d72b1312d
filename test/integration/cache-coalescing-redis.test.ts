import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@redis/client';
import { cacheKey } from '../../src/core/cache/response-cache.js';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * Daemons sharing Redis share a cold miss too: a burst of first requests for one URL, spread over three daemons,
 * makes one source fetch; the others take the answer from Redis. A lock left by a daemon that died is waited
 * out (its TTL), then taken, so a miss is never stuck behind a dead holder.
 */
const skip = skipRedisTests();
let redis: RedisServer;
let site: FixtureSite;
let temp: TempProject;
let daemons: Runtime[] = [];
let key: string;

describe.skipIf(skip)('cold misses across daemons on Redis', () => {
  beforeAll(async () => {
    [redis, site] = await Promise.all([startRedisServer(), startFixtureSite()]);
    temp = await makeProject(
      [pageConfig('slow', `${site.origin}/daemon/slow?ms=300`), pageConfig('orphan', `${site.origin}/daemon/echo?name=orphan`)],
      { heal: 'off' },
    );
    // The daemons' own locks live longer than any fetch here (as in production); the dead holder's lock below is short.
    const open = () => createRuntime(temp.project, { watch: false, redisUrl: redis.url, missLockTtlMs: 30_000 });
    daemons = [await open(), await open(), await open()];
    key = (await issueKey(daemons[0]!.store, { freeCredits: 1_000 })).key;
  });
  afterAll(async () => {
    await Promise.all(daemons.map((daemon) => daemon.close()));
    await temp?.cleanup();
    await Promise.all([redis?.stop(), site?.close()]);
  });

  it('fetches once for a burst of cold requests spread over three daemons', async () => {
    site.resetHits();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        daemons[i % 3]!.retrieval.retrieve({ apiId: 'slow', apikey: key, method: 'GET', body: undefined, query: {} }),
      ),
    );
    expect(site.hitCount('/daemon/slow')).toBe(1);
    expect(new Set(answers.map((answer) => answer.body))).toEqual(
      new Set([JSON.stringify({ data: { title: 'Slow page', kind: 'slow' }, errors: null })]),
    );
    // One answer was the fetch; the others came from Redis or from the fetch their own daemon shared.
    expect(answers.filter((answer) => answer.cache === 'MISS').length).toBeGreaterThanOrEqual(1);
  });

  it('waits out the lock of a daemon that died holding it, then fetches', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    const config = daemons[0]!.configs.get('orphan')!;
    // A daemon took the miss lock for this entry and died: the lock stays until its TTL runs out.
    await client.set(`pagejson:refresh:${cacheKey('orphan', config.revision, config.url)}`, 'dead-daemon', { PX: 400 });
    await client.quit();
    site.resetHits();
    const answer = await daemons[1]!.retrieval.retrieve({ apiId: 'orphan', apikey: key, method: 'GET', body: undefined, query: {} });
    expect(answer.cache).toBe('MISS');
    expect(JSON.parse(answer.body).data.title).toBe('orphan');
    expect(site.hitCount('/daemon/echo')).toBe(1);
  });
});
