import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heapAfterGc } from '../support/heap.js';
import { createCrawleeScraper } from '../../src/core/fetch/scrapers/crawlee.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Scraper 2 in a long-running process: 1,000 fetches through one crawler, run from an empty working
 * directory. Crawlee with its default storage writes every request under ./storage and grows by ~1.5 MB per
 * request; with in-memory storage and handled requests forgotten (scraper 2's own request manager) the heap
 * must stay flat.
 */

const TOTAL = 1_000;
const BASELINE_AT = 200;
const CONCURRENCY = 8;
/**
 * 30 MB over 800 requests is ~38 KB per request: far below the ~1.5 MB per request of persisted storage, yet
 * far above the noise of V8's heap after a full GC (a few MB). A leak of one page body (~5 KB here) per
 * request would show up as ~4 MB, so this is a check for leaks of the storage kind, not for every byte.
 */
const MAX_GROWTH_BYTES = 30 * 1024 * 1024;

let site: FixtureSite;
let workDir: string;
const originalCwd = process.cwd();

beforeAll(async () => {
  site = await startFixtureSite();
  workDir = await mkdtemp(join(tmpdir(), 'pagejson-'));
  process.chdir(workDir);
});

afterAll(async () => {
  process.chdir(originalCwd);
  await site?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('scraper 2 over 1,000 requests', () => {
  it('keeps the heap flat, fetches every request, and writes nothing to ./storage', async () => {
    const scraper = createCrawleeScraper({ timeoutMs: 10_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 });
    const url = `${site.origin}/listing.html`;
    site.resetHits();
    let baseline = 0;
    try {
      for (let done = 0; done < TOTAL; done += CONCURRENCY) {
        const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => scraper.fetch({ url })));
        for (const result of results) expect(result.status).toBe(200);
        if (done + CONCURRENCY === BASELINE_AT) baseline = heapAfterGc();
      }
      const final = heapAfterGc();
      expect(baseline).toBeGreaterThan(0);
      expect(final - baseline).toBeLessThan(MAX_GROWTH_BYTES);
      expect(site.hitCount('/listing.html')).toBe(TOTAL);
    } finally {
      await scraper.close();
    }
    expect(existsSync(join(workDir, 'storage'))).toBe(false);
    expect(await readdir(workDir)).toEqual([]);
  });
});
