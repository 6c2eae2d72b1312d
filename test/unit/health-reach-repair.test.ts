import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConfigSchema, type ApiConfig, type ApiConfigInput } from '../../src/core/config/schema.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/index.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { baselineFor, judgeConfig, proposeRepair, repairVerdict } from '../../src/core/health/index.js';
import { extractedBy } from '../../src/core/health/repair.js';
import { GOODS } from '../support/site-routes/heal-trust.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Issue 47 item 2: what a config uses to reach its data is repaired and judged with its fields: the section
 * selector and a "Load more" button (the pager's next link: health-heal-trust.test.ts). The fixture site's
 * pages (test/support/site-routes/heal-trust.ts) fetched by the http scraper, the repair in-process.
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

const config = (input: Omit<ApiConfigInput, 'apiId'>): ApiConfig => ApiConfigSchema.parse({ apiId: 'goods', ...input });
const page = async (path: string, state: [string, string] | undefined) => {
  if (state) site.state.set(...state);
  try {
    const fetched = await http.fetch({ url: `${site.origin}${path}` });
    return { html: fetched.html, pageUrl: fetched.finalUrl };
  } finally {
    if (state) site.state.delete(state[0]);
  }
};
const GOODS_LIST: ApiConfigInput['structure'] = [
  { name: 'goods', type: 'array', items: { type: 'string' }, selector: 'ul.goods h3.good-name' },
];

describe('the section selector', () => {
  it('main.catalogue became main.x7-main with every class renamed: the section is repaired, and the goods read without the promo beside them', async () => {
    const before = config({ url: `${site.origin}/trust/section`, selector: 'main.catalogue', structure: GOODS_LIST });
    const good = await page('/trust/section', undefined);
    const expected = extractedBy(before, good.html, good.pageUrl);
    expect(expected).toEqual({ goods: GOODS });
    const baseline = baselineFor(before, undefined, [expected]);

    const changed = await page('/trust/section', ['section', '2']);
    const proposal = await proposeRepair({ config: before, ...changed, expected });
    expect(proposal.config.selector).toMatch(/^main/);
    // The fields were repaired inside it.
    expect(proposal.repaired).toContain('goods');
    expect(proposal.repaired).toContain('selector');
    expect(proposal.changes.map((change) => change.text).join('\n')).toContain(proposal.config.selector);
    // Read inside the new section: the goods, not the promo's gift card.
    expect(proposal.data).toEqual({ goods: GOODS });
    const now = judgeConfig(before, proposal.before, baseline);
    const withRepair = judgeConfig(proposal.config, proposal.data, baseline);
    expect(now.state).toBe('broken');
    expect(withRepair.state).toBe('healthy');
    expect(repairVerdict(now, withRepair).better).toBe(true);
  });

  it('a section that still matches is kept', async () => {
    const before = config({ url: `${site.origin}/trust/section`, selector: 'main.catalogue', structure: GOODS_LIST });
    const good = await page('/trust/section', undefined);
    const proposal = await proposeRepair({ config: before, ...good, expected: { goods: GOODS } });
    expect(proposal.config.selector).toBe('main.catalogue');
    expect(proposal.changes).toEqual([]);
  });
});

describe('a "Load more" button', () => {
  const feed = () =>
    config({ url: `${site.origin}/trust/feed`, scraper: 3, pagination: { loadMore: 'button.more' }, structure: GOODS_LIST });

  it('button.more became button.feed__more: the button is repaired with the list, a Subscribe button beside it left alone', async () => {
    const changed = await page('/trust/feed', ['feed', '2']);
    const proposal = await proposeRepair({ config: feed(), ...changed, expected: { goods: GOODS.slice(0, 4) } });
    expect(proposal.config.pagination?.loadMore).toBe('button.feed__more');
    expect(proposal.repaired).toEqual(['pagination.loadMore']);
    expect(proposal.changes.map((change) => change.text).join('\n')).toContain('button.feed__more');
  });

  it('a button that is still there is kept', async () => {
    const good = await page('/trust/feed', undefined);
    const proposal = await proposeRepair({ config: feed(), ...good, expected: { goods: GOODS.slice(0, 4) } });
    expect(proposal.config.pagination?.loadMore).toBe('button.more');
    expect(proposal.changes).toEqual([]);
  });
});
