import { ApiConfigSchema, type ApiConfig, type ApiConfigInput } from '../src/core/config/schema.js';
import { createWorkerPoolExtractor } from '../src/core/extract/workers/index.js';
import { createScraperPool } from '../src/core/fetch/scrapers/index.js';
import { retrieve, type RetrieveDeps } from '../src/core/retrieval/retrieve.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FigureSink } from './browser-actions.js';
import { startUntil } from './proc.js';

/**
 * A paginated retrieval of 3 pages against the same retrieval of one page (issue 34, docs/pagination.md), on
 * scrapers 1 and 2, through the page pipeline as the daemon runs it (the scraper pool with its per-origin
 * queue, the extraction worker pool): by next link (each page after the one before) and by page number (pages
 * fetched ahead). Pages of 50 books from the fixture site, each answered 10 ms late as a site across a network
 * is (on the loopback a page takes a millisecond, and a single-threaded local source serves pages fetched at
 * once one after the other: docs/performance.md says what that measures). Target: 3 pages ≤ 3.3 × one page, i.e. the loop,
 * the merge and the next-link reading cost at most a tenth of a page more than the three pages themselves.
 * Medians of alternating rounds, so both sides see the same moments of a noisy machine; the source runs in a
 * process of its own.
 */
const SIZE = 50;
/** How late the source answers each page: a site across a network, not one on the loopback answering at once. */
const LATENCY_MS = 10;

function configs(origin: string, scraper: 1 | 2): Array<{ name: string; one: ApiConfig; three: ApiConfig }> {
  const structure: ApiConfigInput['structure'] = [
    { name: 'heading', type: 'string', selector: 'h1' },
    {
      name: 'books',
      type: 'array',
      selector: 'li.book',
      fields: [
        { name: 'title', type: 'string', selector: 'a.title' },
        { name: 'url', type: 'url', selector: 'a.title', attribute: 'href' },
        { name: 'price', type: 'number', selector: '.price' },
      ],
    },
  ];
  const parse = (input: Omit<ApiConfigInput, 'structure' | 'scraper'>) =>
    ApiConfigSchema.parse({ ...input, scraper, caching: false, structure });
  return [
    {
      name: 'next link',
      one: parse({ apiId: 'one', url: `${origin}/pages/next.html?size=${SIZE}&delay=${LATENCY_MS}&pages=3&page=1` }),
      three: parse({
        apiId: 'next',
        url: `${origin}/pages/next.html?size=${SIZE}&delay=${LATENCY_MS}&pages=3&page=1`,
        pagination: { next: 'a[rel=next]' },
      }),
    },
    {
      name: 'page numbers',
      one: parse({ apiId: 'one', url: `${origin}/pages/numbered?size=${SIZE}&delay=${LATENCY_MS}&pages=3&page=1` }),
      three: parse({
        apiId: 'numbered',
        url: `${origin}/pages/numbered?size=${SIZE}&delay=${LATENCY_MS}&pages=3&page={{ page }}`,
        pagination: { variable: 'page', maxPages: 3 },
      }),
    },
  ];
}

/** Mean time of one call over a round of `n` calls; rounds of one and of three alternate, and the medians are taken. */
async function medians(
  one: () => Promise<void>,
  three: () => Promise<void>,
  rounds: number,
  n: number,
): Promise<{ oneMs: number; threeMs: number }> {
  const times = { one: [] as number[], three: [] as number[] };
  for (let round = 0; round < rounds; round += 1) {
    for (const [side, fn] of [
      ['one', one],
      ['three', three],
    ] as const) {
      const start = performance.now();
      for (let i = 0; i < n; i += 1) await fn();
      times[side].push((performance.now() - start) / n);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { oneMs: median(times.one), threeMs: median(times.three) };
}

/** The source: the fixture site's paged lists in a process of its own, on the load generator's core when pinned. */
async function startSource(): Promise<{ origin: string; stop(): void }> {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const source = await startUntil(1, process.execPath, [join(here, 'servers/paged-source.js')], /paged source ready on (http:\/\/\S+)/);
  return { origin: source.match[1]!, stop: () => source.child.kill('SIGTERM') };
}

export async function paginationFigures(sink: FigureSink, quick: boolean): Promise<void> {
  const site = await startSource();
  const pool = createScraperPool({ timeoutMs: 20_000, maxBytes: 10 * 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 });
  const extractor = createWorkerPoolExtractor({
    timeoutMs: 5_000,
    limits: { maxDepth: 512, maxElements: 200_000 },
    threads: 1,
    idleReleaseMs: 0,
  });
  const deps: RetrieveDeps = { scraperFor: (n) => pool.get(n), extractor, pages: { budgetMs: 20_000, concurrency: 4 } };
  try {
    for (const scraper of [1, 2] as const) {
      for (const entry of configs(site.origin, scraper)) {
        const run = (config: ApiConfig, pages: number) => async () => {
          const result = await retrieve(config, {}, deps, { handOverPage: true });
          if ((result.data.books as unknown[]).length !== SIZE * pages)
            throw new Error(`${config.apiId} read ${(result.data.books as unknown[]).length} books`);
        };
        const [one, three] = [run(entry.one, 1), run(entry.three, 3)];
        for (let i = 0; i < 10; i += 1) await Promise.all([one(), three()]);
        const { oneMs, threeMs } = await medians(one, three, quick ? 3 : 7, quick ? 20 : 60);
        sink.record({
          figure: `scraper ${scraper}, a paginated retrieval of 3 pages by ${entry.name}`,
          value: threeMs,
          unit: 'ms',
          baseline: oneMs,
          ratio: threeMs / oneMs,
          target: '≤ 3.3 × one page',
          pass: threeMs / oneMs <= 3.3,
          note: `pages of ${SIZE} books from the fixture site, answered ${LATENCY_MS} ms late; the page pipeline with the scraper pool and one extraction thread; medians of ${quick ? 3 : 7} alternating rounds of ${quick ? 20 : 60} calls`,
        });
      }
    }
  } finally {
    await pool.close();
    await extractor.close();
    site.stop();
  }
}
