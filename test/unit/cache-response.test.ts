import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheKey, createResponseCache, type ResponseCache } from '../../src/core/cache/response-cache.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

const MINUTE = 60_000;
let site: FixtureSite;
let dir: string;
let clock: number;
const caches: ResponseCache[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-cache-'));
  // keyv stamps TTLs with the real clock, so the test clock starts at real time and only moves forward.
  clock = Date.now();
  site.resetHits();
});
afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
  await rm(dir, { recursive: true, force: true });
});

async function openCache(overrides: { memoryEntries?: number; memoryBytes?: number } = {}): Promise<ResponseCache> {
  const cache = await createResponseCache({
    sqlitePath: join(dir, 'cache.sqlite'),
    freshMs: 15 * MINUTE,
    keepMs: 24 * 60 * MINUTE,
    memoryEntries: overrides.memoryEntries ?? 100,
    ...(overrides.memoryBytes ? { memoryBytes: overrides.memoryBytes } : {}),
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
    const text = await response.text();
    return { length: text.length, fetchedAtClock: clock };
  };
}

describe('response cache (docs/wire.md, caching)', () => {
  it('serves a fresh entry from cache for 15 minutes, then stale with exactly one background refresh', async () => {
    const cache = await openCache();
    const key = cacheKey('books', 1, `${site.origin}/slow.html`);
    const first = await cache.get(key, loadFrom('/slow.html'), { caching: true });
    expect(first.state).toBe('MISS');
    expect(JSON.parse(first.body)).toEqual({ data: { length: expect.any(Number), fetchedAtClock: clock }, errors: null });

    clock += 14 * MINUTE;
    const hit = await cache.get(key, loadFrom('/slow.html'), { caching: true });
    expect(hit.state).toBe('HIT');
    expect(hit.ageSeconds).toBe(14 * 60);
    expect(site.hitCount('/slow.html')).toBe(1);

    clock += 2 * MINUTE;
    const answers = await Promise.all(Array.from({ length: 100 }, () => cache.get(key, loadFrom('/slow.html'), { caching: true })));
    expect(new Set(answers.map((a) => a.state))).toEqual(new Set(['STALE']));
    expect(answers.every((a) => a.body === first.body)).toBe(true);
    await cache.idle();
    expect(site.hitCount('/slow.html')).toBe(2);

    const refreshed = await cache.get(key, loadFrom('/slow.html'), { caching: true });
    expect(refreshed.state).toBe('HIT');
    expect(JSON.parse(refreshed.body).data.fetchedAtClock).toBe(clock);
  });

  it('shares one fetch among 100 concurrent misses', async () => {
    const cache = await openCache();
    const key = cacheKey('slow', 1, `${site.origin}/slow.html`);
    const answers = await Promise.all(Array.from({ length: 100 }, () => cache.get(key, loadFrom('/slow.html'), { caching: true })));
    expect(answers.every((a) => a.state === 'MISS')).toBe(true);
    expect(site.hitCount('/slow.html')).toBe(1);
  });

  it('never caches errors, keeps the old entry when a refresh fails, and bypasses when caching is off', async () => {
    const cache = await openCache();
    const key = cacheKey('broken', 1, `${site.origin}/error-500.html`);
    await expect(cache.get(key, loadFrom('/error-500.html'), { caching: true })).rejects.toThrow('HTTP 500');
    await expect(cache.get(key, loadFrom('/error-500.html'), { caching: true })).rejects.toThrow('HTTP 500');
    expect(site.hitCount('/error-500.html')).toBe(2);

    const good = await cache.get(key, loadFrom('/slow.html'), { caching: true });
    clock += 20 * MINUTE;
    expect(site.hitCount('/error-500.html')).toBe(2);
    const stale = await cache.get(key, loadFrom('/error-500.html'), { caching: true });
    expect(stale.state).toBe('STALE');
    await cache.idle();
    // The STALE answer started a background refresh, which reached the failing page.
    expect(site.hitCount('/error-500.html')).toBe(3);
    const still = await cache.get(key, loadFrom('/error-500.html'), { caching: true });
    expect(still.state).toBe('STALE');
    expect(still.body).toBe(good.body);

    const bypass1 = await cache.get(key, loadFrom('/slow.html'), { caching: false });
    const bypass2 = await cache.get(key, loadFrom('/slow.html'), { caching: false });
    expect([bypass1.state, bypass2.state]).toEqual(['BYPASS', 'BYPASS']);
    expect(site.hitCount('/slow.html')).toBe(3);
  });

  it('keeps entries across a restart in SQLite, and the revision is part of the key', async () => {
    const before = await openCache();
    const key = cacheKey('books', 3, `${site.origin}/slow.html`);
    const stored = await before.get(key, loadFrom('/slow.html'), { caching: true });
    await before.close();
    caches.length = 0;

    const after = await openCache();
    const restored = await after.get(key, loadFrom('/slow.html'), { caching: true });
    expect(restored.state).toBe('HIT');
    expect(restored.body).toBe(stored.body);
    expect(cacheKey('books', 4, `${site.origin}/slow.html`)).not.toBe(key);
    const edited = await after.get(cacheKey('books', 4, `${site.origin}/slow.html`), loadFrom('/slow.html'), { caching: true });
    expect(edited.state).toBe('MISS');
    expect(site.hitCount('/slow.html')).toBe(2);
  });

  it('bounds memory and reads evicted entries back from SQLite; purges what is past keepHours', async () => {
    const cache = await openCache({ memoryEntries: 2 });
    for (const id of ['a', 'b', 'c']) await cache.get(cacheKey(id, 1, 'u'), async () => ({ id }), { caching: true });
    expect(cache.memorySize).toBe(2);
    const evicted = await cache.get(cacheKey('a', 1, 'u'), async () => ({ id: 'reloaded' }), { caching: true });
    expect(evicted.state).toBe('HIT');
    expect(JSON.parse(evicted.body).data).toEqual({ id: 'a' });

    clock += 25 * 60 * MINUTE;
    expect(await cache.purgeExpired()).toBeGreaterThanOrEqual(3);
    const gone = await cache.get(cacheKey('b', 1, 'u'), async () => ({ id: 'new' }), { caching: true });
    expect(gone.state).toBe('MISS');
  });

  it('bounds memory by bytes too: large bodies push older ones out to SQLite, where they are still hits', async () => {
    const cache = await openCache({ memoryEntries: 1_000, memoryBytes: 50_000 });
    // Random text: gzip takes it only to ~3/4 (a repeated letter would be packed to almost nothing).
    const big = (id: number) => async () => ({ id, text: randomBytes(15_000).toString('base64') });
    for (let id = 0; id < 5; id += 1) await cache.get(cacheKey(`big${id}`, 1, 'u'), big(id), { caching: true });
    expect(cache.memorySize).toBe(2);
    const first = await cache.get(cacheKey('big0', 1, 'u'), big(99), { caching: true });
    expect(first.state).toBe('HIT');
    expect(JSON.parse(first.body).data.id).toBe(0);
  });

  it('keeps bodies gzipped in memory: a budget under a fifth of 200 bodies holds all 200, each answered byte for byte', async () => {
    const cache = await openCache({ memoryEntries: 1_000, memoryBytes: 190_000 });
    const listing = (id: number) => async () => ({
      id,
      items: Array.from({ length: 60 }, (_, i) => ({
        name: `Product ${i} of page ${id}`,
        price: 10 + i,
        url: `https://shop.example/p/${id}/${i}`,
      })),
    });
    const expected = new Map<number, string>();
    for (let id = 0; id < 200; id += 1) {
      const answer = await cache.get(cacheKey(`list${id}`, 1, 'u'), listing(id), { caching: true });
      expected.set(id, answer.body);
    }
    expect([...expected.values()].reduce((sum, body) => sum + Buffer.byteLength(body), 0)).toBeGreaterThan(5 * 190_000);
    expect(cache.memorySize).toBe(200);
    // Every entry answers from memory (a load here would throw), the cold ones unpacked, with the very same bytes.
    for (let id = 0; id < 200; id += 1) {
      const hit = cache.fromMemory(cacheKey(`list${id}`, 1, 'u'));
      expect(hit?.state).toBe('HIT');
      expect(hit?.body).toBe(expected.get(id));
    }
  });
});
