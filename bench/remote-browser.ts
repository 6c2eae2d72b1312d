import { chromium } from 'playwright-core';
import { createBrowserScraper } from '../src/core/fetch/scrapers/browser.js';
import type { Scraper, ScraperOptions } from '../src/core/fetch/scrapers/types.js';
import { startFixtureSite } from '../test/support/site.js';
import type { FigureSink } from './browser-actions.js';
import { chromiumMemory, collectGarbage } from './browser-memory.js';

/**
 * Scraper 3 on a browser elsewhere (issue 51, docs/daemon.md) beside the local launch, in the same run: a
 * retrieval through a Playwright server on loopback (the cost of the hop: the WebSocket, and every request of
 * the page sent by pagejson and handed back to the browser) against the same page on a Chromium launched here,
 * medians of alternating rounds; then 1,000 fetches on each side, with what they leave: pagejson's RSS and open
 * handles, the browser's memory and processes (browser-memory.ts), the sockets open at the source.
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

interface LeakFigures {
  /** Fetches a second over the run (3 at once). */
  perSecond: number;
  /** pagejson's side: RSS growth and the active handles (sockets, timers) left. */
  rssMb: number;
  handles: number;
  /** The browser's side: PSS growth of its processes and the processes left beyond those before. */
  browserMb: number;
  browserProcesses: number;
  /** The source's side: connections still open to it. */
  sourceSockets: number;
}

/** `count` fetches, 3 at once, and what they leave on pagejson's side, in the browser and at the source. */
async function manyFetches(
  scraper: Scraper,
  url: string,
  count: number,
  browserOf: () => Promise<{ mb: number; processes: number }>,
  sourceSockets: () => number,
): Promise<LeakFigures> {
  collectGarbage();
  const rssBefore = process.memoryUsage().rss;
  const handlesBefore = process.getActiveResourcesInfo().length;
  const browserBefore = await browserOf();
  const start = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      await scraper.fetch({ url });
    }
  };
  await Promise.all(Array.from({ length: 3 }, worker));
  const seconds = (performance.now() - start) / 1000;
  // Contexts, their renderers and their sockets close a moment after the last fetch answered.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  collectGarbage();
  const browserAfter = await browserOf();
  return {
    perSecond: count / seconds,
    rssMb: (process.memoryUsage().rss - rssBefore) / 1024 / 1024,
    handles: process.getActiveResourcesInfo().length - handlesBefore,
    browserMb: browserAfter.mb - browserBefore.mb,
    browserProcesses: browserAfter.processes - browserBefore.processes,
    sourceSockets: sourceSockets(),
  };
}

function recordLeaks(sink: FigureSink, side: string, count: number, after: LeakFigures): void {
  const note = `${after.perSecond.toFixed(1)} fetches/s, 3 at once`;
  const figure = (name: string, value: number, unit: string, target: number) =>
    sink.record({ figure: name, value, unit, baseline: null, ratio: null, target: `≤ ${target}`, pass: value <= target, note });
  // The first two names are those of the runs before the browser's side was measured (bench/history.json).
  figure(`scraper 3, RSS growth over ${count} fetches on ${side}`, Math.round(after.rssMb), 'MB', 100);
  figure(`scraper 3, open handles left by ${count} fetches on ${side}`, after.handles, 'handles', 0);
  figure(`scraper 3, browser memory growth (PSS) over ${count} fetches on ${side}`, Math.round(after.browserMb), 'MB', 100);
  figure(`scraper 3, browser processes left by ${count} fetches on ${side}`, after.browserProcesses, 'processes', 0);
  figure(`scraper 3, sockets left open at the source by ${count} fetches on ${side}`, after.sourceSockets, 'sockets', 0);
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
    const serverPid = server.process().pid ?? -1;
    const sides = [
      ['Chromium launched here', local, () => chromiumMemory(process.pid, serverPid)],
      ['a Playwright server', remote, () => chromiumMemory(serverPid)],
    ] as const;
    for (const [side, scraper, browserOf] of sides) {
      recordLeaks(sink, side, count, await manyFetches(scraper, url, count, browserOf, () => site.openSockets()));
    }
  } finally {
    await local.close();
    await remote.close();
    await server.close();
    await site.close();
  }
}
