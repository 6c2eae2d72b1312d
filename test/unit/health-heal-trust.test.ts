import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { compileStructure } from '../../src/core/extract/engine/index.js';
import { ApiConfigSchema } from '../../src/core/config/index.js';
import { baselineFor, healStructure, judgeHealth, proposeRepair, repairVerdict, seedBaseline } from '../../src/core/health/index.js';
import { underCurrentNames } from '../../src/core/health/renamed-data.js';
import { GOODS, JOB_TITLES, goodsHtml, jobsHtml, shopHtml } from '../support/site-routes/heal-trust.js';

/** Issue 47's repairs on the written pages of test/support/site-routes/heal-trust.ts, without a process. */
const URL_BASE = 'http://127.0.0.1:9/';
const extract = (structure: Field[], html: string) => compileStructure({ selector: 'body', structure }).extract(html, URL_BASE).data;
const heal = (structure: Field[], html: string, expected: Record<string, unknown>) =>
  healStructure({ config: { apiId: 'x', selector: 'body', structure }, html, pageUrl: URL_BASE, expected });

describe('a list of strings is repaired to its value elements, not their cards', () => {
  it('titles in li.job-card h2, broken by an edit to li.job-tile h2 on the unchanged page, come back', () => {
    const structure: Field[] = [
      { name: 'heading', type: 'string', selector: 'h1' },
      { name: 'titles', type: 'array', items: { type: 'string' }, selector: 'li.job-card h2' },
    ];
    const good = extract(structure, jobsHtml());
    expect(good.titles).toEqual(JOB_TITLES);
    const broken = structure.map((field) => (field.name === 'titles' ? { ...field, selector: 'li.job-tile h2' } : field));
    const healed = heal(broken, jobsHtml(), good);
    expect(healed.data).toEqual(good);
    expect(healed.repaired).toEqual(['titles']);
    expect(healed.unrepaired).toEqual([]);
    expect(judgeHealth(healed.structure, healed.data, seedBaseline(structure, [good])).state).toBe('healthy');
  });

  it('a list of strings whose classes were renamed under an added wrapper is read again', () => {
    const structure: Field[] = [{ name: 'goods', type: 'array', items: { type: 'string' }, selector: 'ul.goods > li.good > h3.good-name' }];
    const good = extract(structure, goodsHtml('1'));
    expect(good.goods).toEqual(GOODS);
    const healed = heal(structure, goodsHtml('2'), good);
    expect(healed.data).toEqual(good);
  });
});

describe('a repaired field must read its own values', () => {
  const shop: Field[] = [
    { name: 'heading', type: 'string', selector: 'h1' },
    {
      name: 'products',
      type: 'array',
      selector: 'div.cards > div.card',
      fields: [
        { name: 'name', type: 'string', selector: 'h3.card-name a' },
        { name: 'url', type: 'url', selector: 'h3.card-name a', attribute: 'href', transform: ['absoluteUrl'] },
        { name: 'price', type: 'number', selector: '.card-price', transform: ['number'] },
        { name: 'reviewCount', type: 'integer', selector: '.card-reviews', transform: ['integer'] },
      ],
    },
  ];

  it('after a shop\'s redesign, reviewCount is not pointed at the name\'s link (14 from "ZenBook 14"): refused and named', () => {
    const good = extract(shop, shopHtml('1', 1));
    expect((good.products as unknown[]).length).toBe(9);
    const healed = heal(shop, shopHtml('2', 1), good);
    const fields = healed.structure.find((field) => field.name === 'products')!.fields!;
    expect(fields.find((field) => field.name === 'name')!.selector).toContain('tile__name');
    expect(fields.find((field) => field.name === 'reviewCount')!.selector).toBe('.card-reviews');
    expect(healed.refused).toEqual([
      "products.reviewCount: it would read 14, 360 where it read 14, 127, 134 (1 of 9 of its last good values): not this field's values",
    ]);
    expect(healed.unrepaired).toEqual(['products.reviewCount']);
    const items = healed.data.products as Array<Record<string, unknown>>;
    expect(items.map((item) => item.name)).toEqual((good.products as Array<Record<string, unknown>>).map((item) => item.name));
    expect(items.every((item) => item.reviewCount === null)).toBe(true);
  });
});

describe('a renamed field keeps its history', () => {
  it('a list renamed by edit (items=goods) is repaired from a snapshot taken under its old name, and its baseline follows', async () => {
    const before: Field[] = [{ name: 'items', type: 'array', items: { type: 'string' }, selector: 'ul.goods > li.good > h3.good-name' }];
    const snapshot = extract(before, goodsHtml('1'));
    const renamed: Field[] = [{ ...before[0]!, name: 'goods' }];
    const config = { apiId: 'goods', selector: 'body', structure: renamed, generated: { sample: snapshot } };
    const baseline = baselineFor(config, undefined, [snapshot]);
    expect(judgeHealth(renamed, extract(renamed, goodsHtml('2')), baseline).findings).toEqual([
      'goods: empty (had at least 7 items in every good observation)',
    ]);
    const full = ApiConfigSchema.parse({ apiId: 'goods', url: URL_BASE, selector: 'body', structure: renamed });
    const proposal = await proposeRepair({ config: full, html: goodsHtml('2'), pageUrl: URL_BASE, expected: snapshot });
    expect(proposal.data).toEqual({ goods: GOODS });
    expect(proposal.unrepaired).toEqual([]);
    expect(judgeHealth(proposal.config.structure, proposal.data, baseline).state).toBe('healthy');
  });

  it('outside keys stay data: a snapshot key __proto__ is copied as a key, never as a prototype', () => {
    const data = JSON.parse('{"__proto__": {"polluted": true}, "old": ["x", "y"]}') as Record<string, unknown>;
    const mapped = underCurrentNames([{ name: 'goods', type: 'array', items: { type: 'string' }, selector: 'li' }], data);
    expect(Object.getPrototypeOf(mapped)).toBe(null);
    expect(mapped.goods).toEqual(['x', 'y']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(mapped, '__proto__')).toBe(true);
  });
});

describe('what a config uses to reach its data is repaired with its fields', () => {
  const shopConfig = () =>
    ApiConfigSchema.parse({
      apiId: 'shop',
      url: `${URL_BASE}trust/shop`,
      selector: 'body',
      pagination: { next: 'a.next' },
      structure: [
        {
          name: 'products',
          type: 'array',
          selector: 'div.cards > div.card',
          fields: [
            { name: 'name', type: 'string', selector: 'h3.card-name a' },
            { name: 'price', type: 'number', selector: '.card-price', transform: ['number'] },
          ],
        },
      ],
    });

  it('the pager became a.pager__next: pagination.next is repaired with the list, and the change is shown', async () => {
    const config = shopConfig();
    const good = extract(config.structure, shopHtml('1', 1));
    const proposal = await proposeRepair({ config, html: shopHtml('2', 1), pageUrl: `${URL_BASE}trust/shop`, expected: good });
    expect(proposal.config.pagination?.next).toBe('a.pager__next');
    expect(proposal.repaired).toContain('pagination.next');
    expect(proposal.changes.map((change) => change.text).join('\n')).toContain('a.pager__next');
    expect(proposal.data).toEqual(good);
  });

  it('a next link that still leads somewhere is kept', async () => {
    const config = shopConfig();
    const good = extract(config.structure, shopHtml('1', 1));
    const proposal = await proposeRepair({ config, html: shopHtml('1', 1), pageUrl: `${URL_BASE}trust/shop`, expected: good });
    expect(proposal.config.pagination?.next).toBe('a.next');
    expect(proposal.changes).toEqual([]);
  });
});

describe('a repair never makes things worse', () => {
  const judged = (state: 'healthy' | 'degraded' | 'broken', failing: string[]) => ({
    state,
    fields: [],
    failing,
    findings: failing.map((path) => `${path}: empty`),
  });

  it('is saved only when better and no healthy field becomes unhealthy; otherwise it says why', () => {
    expect(repairVerdict(judged('degraded', ['price']), judged('healthy', [])).better).toBe(true);
    expect(repairVerdict(judged('degraded', ['price', 'sku']), judged('degraded', ['sku']))).toMatchObject({
      better: true,
      fixed: ['price'],
    });
    expect(repairVerdict(judged('degraded', ['price']), judged('degraded', ['sku']))).toEqual({
      better: false,
      worsened: ['sku: empty'],
      fixed: ['price'],
      reason: 'it would make healthy fields unhealthy: sku: empty',
    });
    expect(repairVerdict(judged('degraded', ['price']), judged('degraded', ['price'])).reason).toBe(
      'it repairs none of the failing fields (price): the endpoint would stay degraded',
    );
    expect(repairVerdict(judged('broken', ['name']), judged('broken', ['name'])).better).toBe(false);
    // A list emptied now has no judged fields: a field of it still empty with the repair was not healthy before.
    expect(repairVerdict(judged('broken', ['products']), judged('degraded', ['products.reviewCount'])).better).toBe(true);
  });
});
