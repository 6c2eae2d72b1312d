import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestQueue } from '@crawlee/cheerio';
import { crawleeConfiguration } from '../../src/core/fetch/scrapers/crawlee-common.js';
import { createKeepAliveCrawler, type KeepAliveCrawler } from '../../src/core/fetch/scrapers/crawlee-keepalive.js';
import { createMemoryRequestManager, type MemoryRequestManager } from '../../src/core/fetch/scrapers/crawlee-request-manager.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Scraper 2's own request manager behind a real keepAlive CheerioCrawler and the fixture site: every fetch
 * is served, handled requests are forgotten at once, and a retry goes back through the crawler (reclaimed,
 * fetched again) until the source answers.
 */
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await site?.close();
});

async function managedSeam(): Promise<{ manager: MemoryRequestManager; seam: KeepAliveCrawler }> {
  const crawlee = await import('@crawlee/cheerio');
  const manager = createMemoryRequestManager(crawlee.Request);
  // eslint-disable-next-line prefer-const
  let seam: KeepAliveCrawler;
  const crawler = new crawlee.CheerioCrawler(
    {
      keepAlive: true,
      requestQueue: manager as unknown as RequestQueue,
      maxRequestRetries: 2,
      requestHandler: async ({ request, body }) => {
        seam.pendingFor(request)?.resolve({ finalUrl: request.loadedUrl ?? request.url, status: 200, headers: {}, html: String(body) });
      },
      failedRequestHandler: async ({ request }, error) => {
        seam.pendingFor(request)?.reject(error);
      },
    },
    crawleeConfiguration(crawlee),
  );
  seam = createKeepAliveCrawler(crawler, undefined, { abortOnSuccess: false });
  return { manager, seam };
}

describe('createMemoryRequestManager', () => {
  it('serves every fetch of concurrent rounds and keeps no handled request', async () => {
    const { manager, seam } = await managedSeam();
    try {
      site.resetHits();
      for (let round = 0; round < 10; round += 1) {
        const pages = await Promise.all(Array.from({ length: 10 }, () => seam.submit(`${site.origin}/table.html`, { timeoutMs: 10_000 })));
        expect(pages.every((page) => page.html.includes('<table'))).toBe(true);
      }
      expect(site.hitCount('/table.html')).toBe(100);
      // The crawler marks a request handled just after our handler resolves the fetch: give it a moment.
      for (let waited = 0; manager.size() > 0 && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(manager.size()).toBe(0);
      expect(await manager.handledCount()).toBe(100);
      expect(await manager.isFinished()).toBe(true);
    } finally {
      await seam.close();
    }
  });

  it('lets the crawler retry a refused request (reclaimed and fetched again) and serves it', async () => {
    const { manager, seam } = await managedSeam();
    try {
      site.resetHits();
      const page = await seam.submit(`${site.origin}/fingerprint/flaky.html?status=503&token=${randomUUID()}`, { timeoutMs: 10_000 });
      expect(page.html).toContain('Served on a retry');
      expect(site.hitCount('/fingerprint/flaky.html')).toBe(2);
      for (let waited = 0; manager.size() > 0 && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(manager.size()).toBe(0);
    } finally {
      await seam.close();
    }
  });

  it('queues what it is given: strings and request options through addRequestsBatched, retries in front', async () => {
    const crawlee = await import('@crawlee/cheerio');
    const manager = createMemoryRequestManager(crawlee.Request);
    const { addedRequests } = await manager.addRequestsBatched([`${site.origin}/a`, { url: `${site.origin}/b`, uniqueKey: 'b' }]);
    expect(addedRequests.map((added) => added.uniqueKey)).toEqual([expect.stringContaining('/a'), 'b']);
    expect(await manager.isEmpty()).toBe(false);
    const first = await manager.fetchNextRequest();
    expect(first?.url).toBe(`${site.origin}/a`);
    await manager.reclaimRequest(first!);
    expect((await manager.fetchNextRequest())?.url).toBe(`${site.origin}/a`);
    expect((await manager.fetchNextRequest())?.url).toBe(`${site.origin}/b`);
    expect(await manager.isEmpty()).toBe(true);
    expect(await manager.isFinished()).toBe(false);
    expect(manager.getPendingCount()).toBe(2);
  });
});
