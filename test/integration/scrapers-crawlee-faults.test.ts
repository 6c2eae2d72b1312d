import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isPagejsonError, type PagejsonError } from '../../src/core/shared/errors.js';
import { createCrawleeScraper } from '../../src/core/fetch/scrapers/crawlee.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { FAULT_CASES, FAULT_SCRAPER_OPTIONS } from '../support/faults.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Scraper 2 against every fault of the shared fault table: each ends with the typed error the table names,
 * within the deadline (the test's timeout is a generous bound that turns a hang into a failure, never a
 * timing), and leaves no socket open at the source.
 */
/** Far above the 1.5 s deadline plus retries' backoff: only a hang (or a 20 s default) would exceed it. */
const HANG_BOUND_MS = FAULT_SCRAPER_OPTIONS.timeoutMs + 6_000;

let site: FixtureSite;
let scraper: Scraper;

beforeAll(async () => {
  site = await startFixtureSite();
  scraper = createCrawleeScraper({ ...FAULT_SCRAPER_OPTIONS });
  // Warm up (Crawlee's import and start) so the first fault is measured like the others.
  await scraper.fetch({ url: `${site.origin}/listing.html` });
});

afterAll(async () => {
  await scraper?.close();
  await site?.close();
});

/** Waits (bounded) for the site's side of the sockets to close: the close reaches it from another socket. */
async function openSocketsSettle(): Promise<number> {
  await vi.waitFor(() => expect(site.openSockets()).toBe(0), { timeout: 5_000, interval: 20 }).catch(() => undefined);
  return site.openSockets();
}

describe('scraper 2 (crawlee) against faulty sources', () => {
  it.each(FAULT_CASES.map((fault) => [fault.path, fault] as const))(
    '%s ends with its typed error',
    async (_path, fault) => {
      const error = await scraper.fetch({ url: `${site.origin}${fault.path}` }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(isPagejsonError(error), String(error)).toBe(true);
      expect((error as PagejsonError).code, (error as Error).message).toBe(fault.code);
      expect((error as PagejsonError).message).toMatch(fault.reason);
    },
    HANG_BOUND_MS,
  );

  it('still serves a good page afterwards, and no fault left a socket open', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/listing.html` });
    expect(result.status).toBe(200);
    await scraper.close();
    expect(await openSocketsSettle()).toBe(0);
  });

  it('gives the connection up at the deadline, without waiting for close()', async () => {
    const fresh = createCrawleeScraper({ ...FAULT_SCRAPER_OPTIONS, timeoutMs: 400 });
    try {
      await expect(fresh.fetch({ url: `${site.origin}/faults/hang` })).rejects.toMatchObject({ code: 'FETCH_TIMEOUT' });
      // No page was served, so no idle keep-alive socket is expected either: the hung one must be gone.
      expect(await openSocketsSettle()).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('retries a 500 (the source sees more than one request) but not a 404', async () => {
    const fresh = createCrawleeScraper({ ...FAULT_SCRAPER_OPTIONS, timeoutMs: 5_000 });
    try {
      site.resetHits();
      await expect(fresh.fetch({ url: `${site.origin}/faults/500` })).rejects.toMatchObject({ code: 'FETCH_STATUS' });
      await expect(fresh.fetch({ url: `${site.origin}/faults/404` })).rejects.toMatchObject({ code: 'FETCH_STATUS' });
      expect(site.hitCount('/faults/500')).toBeGreaterThan(1);
      expect(site.hitCount('/faults/404')).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
