import { chromium } from 'playwright-core';
import { createBrowserScraper } from '../src/core/fetch/scrapers/browser.js';
import type { Scraper, ScraperOptions } from '../src/core/fetch/scrapers/types.js';
import { startFixtureSite } from '../test/support/site.js';
import type { FigureSink } from './browser-actions.js';

/**
 * Scraper 3 on a browser elsewhere (issue 51, docs/daemon.md) beside the local launch, in the same run: a
 * retrieval through a Playwright server on loopback (the cost of the hop: the WebSocket, and every request of
 * the page sent by pagejson and handed back to the browser) against the same page on a Chromium launched here,
 * medians of alternating rounds; then 1,000 fetches on each side, with the RSS and the open handles they leave.
 */
const CHROMIUM = process.env.PAGEJSON_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed(scraper: Scraper, url: string): Promise<number> {
  const start = performance.now();
  await scraper.fetch({ url });
  return performance.now() - start;
}

async function manyFetches(scraper: Scraper, url: string, count: number): Promise<{ rssMb: number; handles: number }> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const handlesBefore = process.getActiveResourcesInfo().length;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      await scraper.fetch({ url });
    }
  };
  await Promise.all(Array.from({ length: 3 }, worker));
  // Contexts and their sockets close a moment after the last fetch answered.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  global.gc?.();
  return { rssMb: (process.memoryUsage().rss - rssBefore) / 1024 / 1024, handles: process.getActiveResourcesInfo().length - handlesBefore };
}

export async function remoteBrowserFigures(sink: FigureSink, quick: boolean): Promise<void> {
  const site = await startFixtureSite();
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: ARGS, host: '127.0.0.1', port: 0 });
  const options: ScraperOptions = {
    timeoutMs: 60_000,
    maxBytes: 10 * 1024 * 1024,
    allowPrivateNetworks: true,
    perOriginConcurrency: 4,
    chromiumPath: CHROMIUM,
  };
  const local = createBrowserScraper(options);
  const remote = createBrowserScraper({
    ...options,
    browser: { maxSessions: 3, remote: { url: server.wsEndpoint(), kind: 'playwright', headers: {} } },
  });
  const url = `${site.origin}/listing.html`;
  try {
    await local.fetch({ url });
    await remote.fetch({ url });
    const rounds = quick ? 5 : 25;
    const localMs: number[] = [];
    const remoteMs: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      localMs.push(await timed(local, url));
      remoteMs.push(await timed(remote, url));
    }
    const base = median(localMs);
    const hop = median(remoteMs);
    sink.record({
      figure: 'scraper 3 retrieval, Chromium launched here',
      value: Math.round(base),
      unit: 'ms',
      baseline: null,
      ratio: null,
      target: 'reference',
      pass: true,
    });
    sink.record({
      figure: 'scraper 3 retrieval through a Playwright server on loopback',
      value: Math.round(hop),
      unit: 'ms',
      baseline: Math.round(base),
      ratio: Number((hop / base).toFixed(2)),
      target: '≤ 2× the local launch',
      pass: hop <= 2 * base,
    });
    const count = quick ? 100 : 1_000;
    for (const [side, scraper] of [
      ['Chromium launched here', local],
      ['a Playwright server', remote],
    ] as const) {
      const after = await manyFetches(scraper, url, count);
      sink.record({
        figure: `scraper 3, RSS growth over ${count} fetches on ${side}`,
        value: Math.round(after.rssMb),
        unit: 'MB',
        baseline: null,
        ratio: null,
        target: '≤ 100 MB',
        pass: after.rssMb <= 100,
      });
      sink.record({
        figure: `scraper 3, open handles left by ${count} fetches on ${side}`,
        value: after.handles,
        unit: 'handles',
        baseline: null,
        ratio: null,
        target: '≤ 0',
        pass: after.handles <= 0,
      });
    }
  } finally {
    await local.close();
    await remote.close();
    await server.close();
    await site.close();
  }
}
