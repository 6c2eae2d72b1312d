import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisCache } from '../../src/core/cache/redis-cache.js';
import { Paged, Uncacheable, createResponseCache, type ResponseCache } from '../../src/core/cache/response-cache.js';
import { skipRedisTests, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * A paginated answer's page count kept with it in every layer of the cache (issue 34, docs/pagination.md):
 * memory, the SQLite file (a column added to files made before it) and Redis, so that a hit costs what its
 * miss did. A partial answer is served with its reason and kept nowhere.
 */
const MINUTE = 60_000;
let dir: string;
let clock: number;
const caches: ResponseCache[] = [];

async function open(options: Partial<Parameters<typeof createResponseCache>[0]> = {}): Promise<ResponseCache> {
  const cache = await createResponseCache({
    sqlitePath: join(dir, 'cache.sqlite'),
    freshMs: 15 * MINUTE,
    keepMs: 24 * 60 * MINUTE,
    memoryEntries: 100,
    now: () => clock,
    ...options,
  });
  caches.push(cache);
  return cache;
}

async function exec(sql: string): Promise<void> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(join(dir, 'cache.sqlite'), (error) => (error ? reject(error) : resolve(opened)));
  });
  await new Promise<void>((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
  await new Promise((resolve) => db.close(resolve));
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-cache-pages-'));
  clock = Date.UTC(2026, 0, 1);
});
afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('page counts in the cache', () => {
  it('keeps them in memory and in the SQLite file, across a restart', async () => {
    const cache = await open();
    const miss = await cache.get('k', async () => new Paged({ books: [1, 2, 3] }, 3), { caching: true });
    expect(miss).toMatchObject({ state: 'MISS', pages: 3 });
    expect(miss.body).toBe('{"data":{"books":[1,2,3]},"errors":null}');
    expect(cache.fromMemory('k')?.pages).toBe(3);
    const plain = await cache.get('plain', async () => ({ one: 1 }), { caching: true });
    expect(plain.pages).toBe(1);
    await Promise.all(caches.splice(0).map((entry) => entry.close()));
    const reopened = await open();
    const hit = await reopened.get(
      'k',
      async () => {
        throw new Error('not fetched again');
      },
      { caching: true },
    );
    expect(hit).toMatchObject({ state: 'HIT', pages: 3 });
  });

  it('adds the column to a file made before pagination: its entries are one page', async () => {
    await exec(
      'CREATE TABLE responses (key TEXT PRIMARY KEY, body BLOB NOT NULL, fetched_at INTEGER NOT NULL, expires_at INTEGER NOT NULL); INSERT INTO responses VALUES (\'old\', CAST(\'{"data":{"a":1},"errors":null}\' AS BLOB), ' +
        clock +
        ', ' +
        (clock + MINUTE * 60) +
        ')',
    );
    const cache = await open();
    const old = await cache.get(
      'old',
      async () => {
        throw new Error('not fetched again');
      },
      { caching: true },
    );
    expect(old).toMatchObject({ state: 'HIT', pages: 1 });
    await cache.get('new', async () => new Paged({ a: 2 }, 4), { caching: true });
    await Promise.all(caches.splice(0).map((entry) => entry.close()));
    expect((await (await open()).get('new', async () => ({}), { caching: true })).pages).toBe(4);
  });

  it('serves a partial answer with its reason and its pages, and keeps it nowhere', async () => {
    const cache = await open();
    const partial = await cache.get('p', async () => new Paged(new Uncacheable({ books: [1] }, 'partial'), 1, 'time'), { caching: true });
    expect(partial).toMatchObject({ state: 'MISS', pages: 1, partial: 'time' });
    expect(cache.fromMemory('p')).toBeUndefined();
    let loads = 0;
    await cache.get('p', async () => ((loads += 1), { books: [1, 2] }), { caching: true });
    expect(loads).toBe(1);
    const bypass = await cache.get('b', async () => new Paged({ x: 1 }, 2), { caching: false });
    expect(bypass).toMatchObject({ state: 'BYPASS', pages: 2 });
  });
});

describe.skipIf(skipRedisTests())('page counts in Redis', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps them in the shared entry, read by another daemon', async () => {
    const first = await createRedisCache({ url: server.url, prefix: 'pages-a:' });
    const one = await open({ sqlitePath: undefined, keyv: first.keyv, refreshLock: first.refreshLock });
    await one.get('shelf', async () => new Paged({ books: [1, 2, 3, 4, 5, 6] }, 2), { caching: true });
    const second = await createRedisCache({ url: server.url, prefix: 'pages-a:' });
    const other = await open({ sqlitePath: undefined, keyv: second.keyv, refreshLock: second.refreshLock });
    const hit = await other.get(
      'shelf',
      async () => {
        throw new Error('not fetched again');
      },
      { caching: true },
    );
    expect(hit).toMatchObject({ state: 'HIT', pages: 2 });
  });
});
