import { statSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheKey, createResponseCache, type ResponseCache } from '../../src/core/cache/response-cache.js';

/**
 * The response cache's SQLite file is its own (docs/decisions.md, "The response cache owns its SQLite file"):
 * one table with the expiry in a column of its own, purged by the cache's clock, and no table of another
 * library. The file is read here with the driver itself, as a second process would.
 */
const MINUTE = 60_000;
const KEEP_MS = 24 * 60 * MINUTE;
let dir: string;
let file: string;
let clock: number;
const caches: ResponseCache[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-cache-file-'));
  file = join(dir, 'cache.sqlite');
  clock = Date.UTC(2026, 0, 1);
});
afterEach(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
  await rm(dir, { recursive: true, force: true });
});

async function openCache(): Promise<ResponseCache> {
  const cache = await createResponseCache({
    sqlitePath: file,
    freshMs: 15 * MINUTE,
    keepMs: KEEP_MS,
    memoryEntries: 100,
    now: () => clock,
  });
  caches.push(cache);
  return cache;
}

async function closeAll(): Promise<void> {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
}

/** Runs SQL on the file in a connection of its own, closed afterwards. */
async function query<T>(sql: string, ...params: unknown[]): Promise<T[]> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)));
  });
  try {
    return await new Promise<T[]>((resolve, reject) => db.all<T>(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))));
  } finally {
    await new Promise((resolve) => db.close(resolve));
  }
}

const tables = async () =>
  (await query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")).map((row) => row.name);
const rowCount = async () => (await query<{ n: number }>('SELECT count(*) AS n FROM responses'))[0]!.n;

describe('the response cache SQLite file', () => {
  it('keeps entries in a table of its own, written concurrently, and purges them by the cache clock', async () => {
    const cache = await openCache();
    const keys = Array.from({ length: 50 }, (_, id) => cacheKey(`api${id}`, 1, 'u'));
    await Promise.all(keys.map((key, id) => cache.get(key, async () => ({ id }), { caching: true })));
    expect(await tables()).toEqual(['responses']);
    expect(await rowCount()).toBe(50);
    await closeAll();

    // A fresh process: memory is empty, every entry comes from the file.
    clock += KEEP_MS - MINUTE;
    const later = await openCache();
    expect(await later.purgeExpired()).toBe(0);
    // Stale by now: answered from the file, and its refresh (which fails here) keeps the entry.
    const stale = await later.get(keys[7]!, () => Promise.reject(new Error('source down')), { caching: true });
    expect(stale.state).toBe('STALE');
    expect(JSON.parse(stale.body).data).toEqual({ id: 7 });
    await later.idle();
    await closeAll();

    clock += 2 * MINUTE;
    const expired = await openCache();
    expect(await expired.purgeExpired()).toBe(50);
    expect(await rowCount()).toBe(0);
  });

  it('reads an entry past its time as absent even before a purge', async () => {
    const cache = await openCache();
    const key = cacheKey('books', 1, 'u');
    await cache.get(key, async () => ({ id: 'first' }), { caching: true });
    await closeAll();

    clock += KEEP_MS + MINUTE;
    const later = await openCache();
    const answer = await later.get(key, async () => ({ id: 'second' }), { caching: true });
    expect(answer.state).toBe('MISS');
    expect(JSON.parse(answer.body).data).toEqual({ id: 'second' });
  });

  it('opens a file of an earlier version: its keyv table goes, and the cache works', async () => {
    await query('CREATE TABLE keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
    await query(
      'INSERT INTO keyv (key, value) VALUES (?, ?)',
      `keyv:${cacheKey('books', 1, 'u')}`,
      JSON.stringify({ value: { body: '{"data":{"id":"old"},"errors":null}', fetchedAt: clock }, expires: clock + KEEP_MS }),
    );
    const cache = await openCache();
    expect(await tables()).toEqual(['responses']);
    const answer = await cache.get(cacheKey('books', 1, 'u'), async () => ({ id: 'new' }), { caching: true });
    expect(answer.state).toBe('MISS');
    expect(JSON.parse(answer.body).data).toEqual({ id: 'new' });
  });

  it('never opens its file through a link', async () => {
    const elsewhere = join(dir, 'elsewhere.sqlite');
    await writeFile(elsewhere, '');
    await symlink(elsewhere, file);
    await expect(openCache()).rejects.toThrow();
    expect(statSync(elsewhere).size).toBe(0);
  });
});
