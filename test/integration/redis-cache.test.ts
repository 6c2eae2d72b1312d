import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisCache } from '../../src/core/cache/redis-cache.js';
import { cacheKey, createResponseCache, type ResponseCache } from '../../src/core/cache/response-cache.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * The response cache of several daemons over one real redis-server: entries are shared, and a stale entry
 * is refreshed once across all of them (the refresh lock), proven with the fixture site's hit counter and an
 * injectable clock, as test/unit/cache-response.test.ts does for one daemon.
 */
const MINUTE = 60_000;
const skip = skipRedisTests();
let server: RedisServer;
let site: FixtureSite;
let clock: number;
let prefixes = 0;
let prefix: string;
const caches: ResponseCache[] = [];

async function openCache(): Promise<ResponseCache> {
  const redis = await createRedisCache({ url: server.url, prefix });
  const cache = await createResponseCache({
    keyv: redis.keyv,
    refreshLock: redis.refreshLock,
    freshMs: 15 * MINUTE,
    keepMs: 24 * 60 * MINUTE,
    memoryEntries: 100,
    now: () => clock,
  });
  caches.push(cache);
  return cache;
}

/** A real source fetch against the fixture site: every call is one hit on its counter. */
function loadFrom(path: string): () => Promise<unknown> {
  return async () => {
    const response = await fetch(`${site.origin}${path}`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return { length: (await response.text()).length, fetchedAtClock: clock };
  };
}

describe.skipIf(skip)('response cache over Redis (several daemons)', () => {
  beforeAll(async () => {
    [server, site] = await Promise.all([startRedisServer(), startFixtureSite()]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), site?.close()]);
  });
  beforeEach(() => {
    prefix = `c${++prefixes}:`;
    // keyv and Redis stamp TTLs with the real clock, so the test clock starts at real time and only moves forward.
    clock = Date.now();
    site.resetHits();
  });
  afterEach(async () => {
    await Promise.all(caches.splice(0).map((cache) => cache.close()));
  });

  it('shares entries: a second daemon serves what the first fetched, without fetching', async () => {
    const [a, b] = await Promise.all([openCache(), openCache()]);
    const key = cacheKey('books', 1, `${site.origin}/slow.html`);
    const first = await a.get(key, loadFrom('/slow.html'), { caching: true });
    expect(first.state).toBe('MISS');
    clock += 5 * MINUTE;
    const fromB = await b.get(key, loadFrom('/slow.html'), { caching: true });
    expect(fromB).toMatchObject({ state: 'HIT', body: first.body, ageSeconds: 5 * 60 });
    expect(site.hitCount('/slow.html')).toBe(1);

    // Stored under the prefix, as plain JSON (no keyv reviver format), with a TTL of keepHours.
    const { createClient } = await import('@redis/client');
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      const keys = await raw.keys(`${prefix}*`);
      expect(keys).toEqual([`${prefix}cache::${key}`]);
      const stored = JSON.parse((await raw.get(keys[0]!)) ?? 'null') as { value: { body: string } };
      expect(stored.value.body).toBe(first.body);
      expect(await raw.pTTL(keys[0]!)).toBeGreaterThan(23 * 60 * MINUTE);
    } finally {
      await raw.close();
    }
  });

  it('refreshes a stale entry exactly once for 100 concurrent requests spread over two daemons', async () => {
    const [a, b] = await Promise.all([openCache(), openCache()]);
    const key = cacheKey('books', 1, `${site.origin}/slow.html`);
    const first = await a.get(key, loadFrom('/slow.html'), { caching: true });
    expect(site.hitCount('/slow.html')).toBe(1);

    clock += 16 * MINUTE;
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).get(key, loadFrom('/slow.html'), { caching: true })),
    );
    expect(new Set(answers.map((x) => x.state))).toEqual(new Set(['STALE']));
    expect(answers.every((x) => x.body === first.body)).toBe(true);
    await Promise.all([a.idle(), b.idle()]);
    expect(site.hitCount('/slow.html')).toBe(2);

    // The daemon that did not refresh still holds the stale body in memory: its next stale hit takes the
    // refreshed entry from Redis instead of fetching again.
    await Promise.all([a.get(key, loadFrom('/slow.html'), { caching: true }), b.get(key, loadFrom('/slow.html'), { caching: true })]);
    await Promise.all([a.idle(), b.idle()]);
    const [fromA, fromB] = await Promise.all([
      a.get(key, loadFrom('/slow.html'), { caching: true }),
      b.get(key, loadFrom('/slow.html'), { caching: true }),
    ]);
    expect(fromA.state).toBe('HIT');
    expect(fromB.state).toBe('HIT');
    expect(fromA.body).toBe(fromB.body);
    expect(JSON.parse(fromA.body).data.fetchedAtClock).toBe(clock);
    expect(site.hitCount('/slow.html')).toBe(2);
  });

  it('does not refresh while another daemon holds the lock, and refreshes once it is gone', async () => {
    const [a, b] = await Promise.all([openCache(), openCache()]);
    const key = cacheKey('jobs', 2, `${site.origin}/slow.html`);
    await a.get(key, loadFrom('/slow.html'), { caching: true });
    clock += 16 * MINUTE;

    // A third daemon took the lock and was killed mid-refresh: the lock stands until it expires.
    const { createClient } = await import('@redis/client');
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      await raw.set(`${prefix}refresh:${key}`, 'someone-else', { PX: 60_000 });
      const held = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).get(key, loadFrom('/slow.html'), { caching: true })),
      );
      await Promise.all([a.idle(), b.idle()]);
      expect(held.every((x) => x.state === 'STALE')).toBe(true);
      expect(site.hitCount('/slow.html')).toBe(1);

      await raw.del(`${prefix}refresh:${key}`);
      await b.get(key, loadFrom('/slow.html'), { caching: true });
      await b.idle();
      expect(site.hitCount('/slow.html')).toBe(2);
      // The holder released its own lock after the refresh.
      expect(await raw.exists(`${prefix}refresh:${key}`)).toBe(0);
    } finally {
      await raw.close();
    }
  });
});
