import { chromium, type Browser, type Page } from 'playwright-core';
import { ApiConfigSchema, type ApiConfigInput } from '../src/core/config/schema.js';
import { getCompiledStructure } from '../src/core/extract/engine/index.js';
import { createBrowserScraper } from '../src/core/fetch/scrapers/browser.js';
import type { Action } from '../src/core/config/action-text.js';
import { startFixtureSite } from '../test/support/site.js';

/**
 * Scraper 3 with and without browser actions (issue 34, docs/actions.md) beside a hand-written playwright-core
 * baseline doing the same steps on the same pages in the same run: a page read as it loads, and a search page
 * driven by actions (a consent check that finds no wall, type the query, click, wait for the results). Both
 * sides open a browser context per page, wait for the network to go quiet after load, read the HTML and run
 * the same compiled extraction; pagejson adds its guard proxy, byte watch and step bookkeeping. Medians of
 * alternating rounds, so both paths see the same moments of a noisy machine.
 */
export interface FigureSink {
  record(figure: {
    figure: string;
    value: number;
    unit: string;
    baseline: number | null;
    ratio: number | null;
    target: string;
    pass: boolean;
    note?: string;
  }): void;
}

const CHROMIUM = process.env.PAGEJSON_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
const ACTIONS: Action[] = [
  { ifExists: '#consent', then: [{ click: '#accept' }] },
  { type: '#q', text: '{{ q }}' },
  { click: '#go' },
  { wait: 'li.result' },
];

interface Case {
  name: string;
  path: string;
  config: ApiConfigInput;
  /** The same steps written by hand against playwright-core. */
  baseline(page: Page): Promise<void>;
}

function cases(origin: string): Case[] {
  const strings = (selector: string) => [{ name: 'items', type: 'array' as const, selector, items: { type: 'string' as const } }];
  return [
    {
      name: 'without actions',
      path: '/actions/consent.html',
      config: { apiId: 'plain', url: `${origin}/actions/consent.html`, scraper: 3, structure: strings('li.item') },
      baseline: async () => undefined,
    },
    {
      name: 'with 4 actions (consent check, type, click, wait)',
      path: '/actions/search-js.html',
      config: {
        apiId: 'search',
        url: `${origin}/actions/search-js.html`,
        scraper: 3,
        variables: { q: { example: 'light' } },
        actions: ACTIONS,
        structure: strings('li.result'),
      },
      baseline: async (page) => {
        if ((await page.locator('#consent').count()) > 0) await page.locator('#accept').click();
        await page.locator('#q').fill('light');
        await page.locator('#go').click();
        await page.locator('li.result').first().waitFor({ state: 'attached' });
      },
    },
  ];
}

async function time(fn: () => Promise<void>, n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i += 1) await fn();
  return (performance.now() - start) / n;
}

export async function browserActionFigures(sink: FigureSink, quick: boolean): Promise<void> {
  const site = await startFixtureSite();
  const scraper = createBrowserScraper({
    timeoutMs: 30_000,
    maxBytes: 10 * 1024 * 1024,
    allowPrivateNetworks: true,
    perOriginConcurrency: 4,
    chromiumPath: CHROMIUM,
    actionsTimeoutMs: 10_000,
  });
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    for (const entry of cases(site.origin)) {
      const config = ApiConfigSchema.parse(entry.config);
      const structure = getCompiledStructure(config);
      const url = `${site.origin}${entry.path}`;
      const ours = async () => {
        const page = await scraper.fetch({
          url,
          ...(config.actions ? { steps: { actions: config.actions, values: { q: 'light' } } } : {}),
        });
        if (structure.extract(page.html, page.finalUrl).empty) throw new Error(`pagejson read nothing on ${url}`);
      };
      const theirs = async () => {
        const context = await browser!.newContext({ acceptDownloads: false });
        try {
          const page = await context.newPage();
          await page.goto(url, { waitUntil: 'networkidle' });
          await entry.baseline(page);
          if (structure.extract(await page.content(), page.url()).empty) throw new Error(`the baseline read nothing on ${url}`);
        } finally {
          await context.close();
        }
      };
      await ours();
      await theirs();
      const runs = { ours: [] as number[], theirs: [] as number[] };
      for (let round = 0; round < 3; round += 1) {
        runs.ours.push(await time(ours, quick ? 3 : 10));
        runs.theirs.push(await time(theirs, quick ? 3 : 10));
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
      const [oursMs, theirsMs] = [median(runs.ours), median(runs.theirs)];
      sink.record({
        figure: `scraper 3, one page ${entry.name}`,
        value: oursMs,
        unit: 'ms',
        baseline: theirsMs,
        ratio: oursMs / theirsMs,
        target: '≤ 1.2 × playwright-core by hand',
        pass: oursMs / theirsMs <= 1.2,
        note: 'baseline: playwright-core on the same Chromium, a context per page, goto until network idle, the same steps and extraction; medians of 3 alternating rounds',
      });
    }
  } finally {
    await browser?.close();
    await scraper.close();
    await site.close();
  }
}
