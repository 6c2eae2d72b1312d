import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConfigSchema, type ApiConfig, type ApiConfigInput } from '../../src/core/config/schema.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/index.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { baselineFor, judgeConfig, learnBaseline } from '../../src/core/health/index.js';
import { retrieve, type RetrieveDeps } from '../../src/core/retrieval/retrieve.js';
import { parseObservations } from '../../src/core/state/observation.js';
import type { HealthBaseline } from '../../src/core/state/types.js';
import { SHOP_PAGE_SIZE, SHOP_TOTAL, laptop } from '../support/site-routes/heal-trust.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Issue 47, "a repair loses pages": a paginated list's baseline is learned from whole reads (every page), so a
 * later read that stops early (the next link no longer found) is degraded, the finding naming the pages and
 * items read against those of the whole reads. The real page loop over the fixture shop
 * (test/support/site-routes/heal-trust.ts: 24 laptops, 9 a page), extraction in-process.
 */
let site: FixtureSite;
let http: Scraper;

beforeAll(async () => {
  site = await startFixtureSite();
  http = createHttpScraper({ timeoutMs: 10_000, maxBytes: 1024 * 1024, perOriginConcurrency: 2, allowPrivateNetworks: true });
});
afterAll(async () => {
  await http?.close();
  await site?.close();
});

const deps = (): RetrieveDeps => ({ scraperFor: () => http, pages: { budgetMs: 30_000, concurrency: 2 } });

const products = (card: string, name: string, price: string): ApiConfigInput['structure'] => [
  {
    name: 'products',
    type: 'array',
    selector: card,
    fields: [
      { name: 'name', type: 'string', selector: name },
      { name: 'price', type: 'number', selector: price, transform: ['number'] },
    ],
  },
];
const FIRST_PAGE = Array.from({ length: SHOP_PAGE_SIZE }, (_, index) => ({ name: laptop(index).name, price: laptop(index).price }));
const shop = (structure: ApiConfigInput['structure'], next: string): ApiConfig =>
  ApiConfigSchema.parse({
    apiId: 'shop',
    url: `${site.origin}/trust/shop?page=1`,
    selector: 'body',
    pagination: { next },
    structure,
    // generate saw the first page only
    generated: { model: 'heuristic', scraper: 1, at: '2026-11-28T00:00:00.000Z', sample: { products: FIRST_PAGE } },
  });

/** The baseline after the endpoint was read healthy once, whole, as the daemon and `check` learn it. */
async function learnedFromWholeRead(config: ApiConfig): Promise<HealthBaseline> {
  const seeded = baselineFor(config, undefined);
  const result = await retrieve(config, {}, { ...deps() }, seeded ? { baseline: seeded } : {});
  expect(result.pages).toBe(3);
  expect((result.data.products as unknown[]).length).toBe(SHOP_TOTAL);
  expect(result.health.state).toBe('healthy');
  return learnBaseline(seeded, config.structure, result.data, result.headers, result.health.read);
}

describe('a paginated list is judged against whole reads', () => {
  it('the repair that kept a.next while the pager became a.pager__next reads 9 of 24: degraded, saying pages and items', async () => {
    const before = shop(products('div.cards > div.card', 'h3.card-name a', '.card-price'), 'a.next');
    const baseline = await learnedFromWholeRead(before);
    const products24 = baseline.fields.find((entry) => entry.path === 'products')!;
    // The first page the sample holds taught no length; the whole read did.
    expect(products24.counts).toEqual([SHOP_TOTAL]);
    expect(products24.pages).toEqual([3]);

    site.state.set('shop', '2');
    try {
      const repaired = shop(products('div.tiles > div.tile', 'h3.tile__name a', '.tile__price'), 'a.next');
      const result = await retrieve(repaired, {}, deps(), { baseline });
      expect(result.pages).toBe(1);
      expect(result.health.state).toBe('degraded');
      expect(result.health.failing).toEqual(['products']);
      expect(result.health.findings).toEqual([
        'products: read 9 items from 1 page where every whole read had at least 24 items from 3 pages: the reading stopped early',
      ]);
      // The pager repaired as well: whole again, healthy.
      const whole = await retrieve({ ...repaired, pagination: { ...repaired.pagination!, next: 'a.pager__next' } }, {}, deps(), {
        baseline,
      });
      expect(whole.pages).toBe(3);
      expect(whole.health.state).toBe('healthy');
    } finally {
      site.state.delete('shop');
    }
  });

  it('a read cut short (time, a failed page) does not teach the list its length; one of fewer, fuller pages is healthy', async () => {
    const config = shop(products('div.cards > div.card', 'h3.card-name a', '.card-price'), 'a.next');
    const baseline = await learnedFromWholeRead(config);
    const short = { products: FIRST_PAGE };
    const cut = judgeConfig(config, short, baseline, undefined, { pages: 1, partial: 'time' });
    expect(cut.findings).toEqual([
      'products: read 9 items from 1 page (cut short: time) where every whole read had at least 24 items from 3 pages: the reading stopped early',
    ]);
    // Even taken as good (check --accept does so knowingly), a cut read keeps the whole reads' figures.
    const after = learnBaseline(baseline, config.structure, short, {}, cut.read);
    expect(after.fields.find((entry) => entry.path === 'products')).toMatchObject({ counts: [SHOP_TOTAL], pages: [3] });
    // The site now shows all 24 on one page: fewer pages, not fewer items.
    const all = { products: Array.from({ length: SHOP_TOTAL }, (_, index) => ({ name: laptop(index).name, price: laptop(index).price })) };
    expect(judgeConfig(config, all, baseline, undefined, { pages: 1 }).state).toBe('healthy');
  });

  it("a baseline's pages from another process are checked like its counts", () => {
    const observation = (pages: unknown) => [
      {
        apiId: 'shop',
        at: '2026-11-28T00:00:00.000Z',
        health: 'healthy',
        baseline: { version: 1, fields: [{ path: 'products', type: 'array', seen: 1, filled: 1, counts: [24], pages }] },
      },
    ];
    expect(parseObservations(observation([3]))[0]!.baseline!.fields[0]!.pages).toEqual([3]);
    expect(() => parseObservations(observation(['3']))).toThrow(RangeError);
    expect(() => parseObservations(observation(Array.from({ length: 11 }, () => 3)))).toThrow(RangeError);
    expect(() => parseObservations(observation({ length: 1 }))).toThrow(RangeError);
  });
});
