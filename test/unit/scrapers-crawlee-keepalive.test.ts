import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheerioCrawler } from '@crawlee/cheerio';
import { crawleeConfiguration } from '../../src/core/fetch/scrapers/crawlee-common.js';
import { createKeepAliveCrawler, type KeepAliveCrawler } from '../../src/core/fetch/scrapers/crawlee-keepalive.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * The request/response seam over a keepAlive crawler, on a real CheerioCrawler and the fixture site:
 * first fetch right after construction, fresh keys, the sweep of handled requests, SIGINT left alone,
 * and close() settling what is still pending.
 */
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await site?.close();
});

async function cheerioSeam(): Promise<{ crawler: CheerioCrawler; seam: KeepAliveCrawler }> {
  const crawlee = await import('@crawlee/cheerio');
  // eslint-disable-next-line prefer-const
  let seam: KeepAliveCrawler;
  const crawler = new crawlee.CheerioCrawler(
    {
      keepAlive: true,
      requestHandler: async ({ request, body }) => {
        seam.pendingFor(request)?.resolve({ finalUrl: request.loadedUrl ?? request.url, status: 200, headers: {}, html: String(body) });
      },
    },
    crawleeConfiguration(crawlee),
  );
  seam = createKeepAliveCrawler(crawler);
  return { crawler, seam };
}

describe('createKeepAliveCrawler', () => {
  it('answers the very first fetch (no 180 s wait) and leaves the process SIGINT handlers as they were', async () => {
    // Importing Crawlee installs signal-exit's listener (harmless: it re-raises when alone); count after it.
    await import('@crawlee/cheerio');
    const sigintBefore = process.listenerCount('SIGINT');
    const { seam } = await cheerioSeam();
    try {
      // Far below Crawlee's 180 s first-request stall, far above any honest start on a busy machine.
      const result = await seam.submit(`${site.origin}/listing.html`, { timeoutMs: 30_000 });
      expect(result.html).toContain('<html');
      expect(process.listenerCount('SIGINT')).toBe(sigintBefore);
    } finally {
      await seam.close();
    }
  });

  it('forgets handled requests, so the in-memory queue does not keep every fetch it ever made', async () => {
    const { crawler, seam } = await cheerioSeam();
    try {
      site.resetHits();
      for (let round = 0; round < 15; round += 1) {
        await Promise.all(Array.from({ length: 10 }, () => seam.submit(`${site.origin}/table.html`, { timeoutMs: 10_000 })));
      }
      expect(site.hitCount('/table.html')).toBe(150);
      // One more round lets the last sweep finish; the queue then holds at most a batch or two.
      await seam.submit(`${site.origin}/table.html`, { timeoutMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const info = await (await crawler.getRequestQueue()).getInfo();
      expect(info?.totalRequestCount).toBeLessThan(110);
    } finally {
      await seam.close();
    }
  });

  it('rejects what is still pending when closed, and refuses new work afterwards', async () => {
    const { seam } = await cheerioSeam();
    await seam.submit(`${site.origin}/listing.html`, { timeoutMs: 10_000 });
    const pending = seam.submit(`${site.origin}/faults/hang`, { timeoutMs: 30_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await seam.close();
    expect(await pending).toMatchObject({ code: 'FETCH_FAILED', message: 'the scraper is closed' });
    await expect(seam.submit(`${site.origin}/listing.html`, { timeoutMs: 1_000 })).rejects.toMatchObject({ message: 'the scraper is closed' });
  });

  it('times out at the fetch deadline with FETCH_TIMEOUT', async () => {
    const { seam } = await cheerioSeam();
    try {
      await seam.submit(`${site.origin}/listing.html`, { timeoutMs: 10_000 });
      await expect(seam.submit(`${site.origin}/faults/hang`, { timeoutMs: 300 })).rejects.toMatchObject({
        code: 'FETCH_TIMEOUT',
        message: 'timed out after 300 ms',
      });
    } finally {
      await seam.close();
    }
  });
});
