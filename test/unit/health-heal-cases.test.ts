import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { compileStructure } from '../../src/core/extract/engine/index.js';
import { healStructure, judgeHealth, seedBaseline } from '../../src/core/health/index.js';
import { HEALTH_TAGS, planets, product, products, tags } from '../support/site-routes/health.js';

/**
 * Detection and repair on written pages, one per kind of change of issue 33 item 6: the old config is judged
 * not healthy with findings that name its fields, `heal` brings every value back, and the healed config is
 * judged healthy against the same baseline.
 */
const URL_BASE = 'http://127.0.0.1:9/';
const extract = (structure: Field[], html: string) => compileStructure({ selector: 'body', structure }).extract(html, URL_BASE).data;

function caseOf(structure: Field[], before: string, after: string) {
  const good = extract(structure, before);
  const baseline = seedBaseline(structure, [good]);
  const stale = judgeHealth(structure, extract(structure, after), baseline);
  const healed = healStructure({ config: { apiId: 'x', selector: 'body', structure }, html: after, pageUrl: URL_BASE, expected: good });
  return { good, stale, healed, healedHealth: judgeHealth(healed.structure, healed.data, baseline) };
}

const productStructure: Field[] = [
  { name: 'name', type: 'string', selector: 'main h1' },
  { name: 'price', type: 'number', selector: '.price-box .price:not(del *)', transform: ['number'] },
  { name: 'currency', type: 'string', selector: '.price-box .price:not(del *)', attribute: 'data-currency' },
  { name: 'sku', type: 'string', selector: '.sku' },
];
const listStructure: Field[] = [
  { name: 'heading', type: 'string', selector: 'h1' },
  {
    name: 'products',
    type: 'array',
    selector: 'div.products > article.product',
    fields: [
      { name: 'title', type: 'string', selector: 'a.title' },
      { name: 'url', type: 'url', selector: 'a.title', attribute: 'href', transform: ['absoluteUrl'] },
      { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
    ],
  },
];

describe('detection and repair on written pages', () => {
  it('classes renamed: price, currency and SKU are named; heal repairs them together, keeping the :not(del *) guard', () => {
    const { good, stale, healed, healedHealth } = caseOf(productStructure, product('1'), product('2'));
    expect(good).toEqual({ name: 'Walnut desk', price: 249, currency: 'USD', sku: 'WD-4471' });
    expect(stale.state).toBe('degraded');
    expect(stale.findings).toEqual([
      'price: empty in 1 of 1 (was filled in 1 of 1)',
      'currency: empty in 1 of 1 (was filled in 1 of 1)',
      'sku: empty in 1 of 1 (was filled in 1 of 1)',
    ]);
    expect(healed.data).toEqual(good);
    expect(healed.unrepaired).toEqual([]);
    expect(healed.structure.find((field) => field.name === 'price')!.selector).toContain(':not(del *)');
    expect(healedHealth.state).toBe('healthy');
  });

  it('a table inserted before the target table: numbers became text; heal reads the planets again', () => {
    const structure: Field[] = [
      {
        name: 'rows',
        type: 'array',
        selector: 'article table:first-of-type tbody tr',
        fields: [
          { name: 'planet', type: 'string', selector: 'td:nth-child(1)' },
          { name: 'moons', type: 'string', selector: 'td:nth-child(2)' },
        ],
      },
    ];
    const { good, stale, healed, healedHealth } = caseOf(structure, planets('1'), planets('2'));
    expect((good.rows as unknown[]).length).toBe(8);
    expect(stale.state).toBe('degraded');
    expect(stale.findings).toEqual(['rows[].moons: numbers became text such as "SKY10"']);
    expect(healed.data).toEqual(good);
    expect(healedHealth.state).toBe('healthy');
  });

  for (const [version, change] of [
    ['2', 'item container renamed'],
    ['3', 'an extra wrapper'],
  ] as const) {
    it(`${change}: the list is named; heal repairs the container with its title and url`, () => {
      const { good, stale, healed, healedHealth } = caseOf(listStructure, products('1'), products(version));
      expect(stale.findings).toEqual(['products: empty (had at least 6 items in every good observation)']);
      expect(healed.data).toEqual(good);
      expect(healed.unrepaired).toEqual([]);
      expect(healedHealth.state).toBe('healthy');
    });
  }

  it("fields that read one element are repaired together: the url whose addresses changed follows its title's link", () => {
    const { good, stale, healed, healedHealth } = caseOf(listStructure, products('1'), products('4'));
    expect(stale.state).toBe('degraded');
    const fields = healed.structure.find((field) => field.name === 'products')!.fields!;
    expect(fields.find((field) => field.name === 'url')!.selector).toBe(fields.find((field) => field.name === 'title')!.selector);
    const items = healed.data.products as Array<Record<string, unknown>>;
    expect(items.map((item) => item.url)).toEqual(
      (good.products as Array<{ url: string }>).map((item) => `${item.url.replace('/p/', '/item/')}?ref=grid`),
    );
    expect(healed.unrepaired).toEqual([]);
    expect(healedHealth.state).toBe('healthy');
  });

  it('a selector broken by an edit on an unchanged page: a top-level list of strings is repaired', () => {
    const structure: Field[] = [{ name: 'tags', type: 'array', selector: 'ul.tags li', items: { type: 'string' } }];
    const good = extract(structure, tags());
    expect(good.tags).toEqual(HEALTH_TAGS);
    const broken: Field[] = [{ ...structure[0]!, selector: 'ul.tags li:first-child' }];
    const baseline = seedBaseline(structure, [good]);
    const stale = judgeHealth(broken, extract(broken, tags()), baseline);
    expect(stale.findings).toEqual(['tags: 1 item (had at least 13 in every good observation)']);
    const healed = healStructure({
      config: { apiId: 'x', selector: 'body', structure: broken },
      html: tags(),
      pageUrl: URL_BASE,
      expected: good,
    });
    expect(healed.data).toEqual(good);
    expect(judgeHealth(healed.structure, healed.data, baseline).state).toBe('healthy');
  });

  it('a top-level list of objects broken by an edit on an unchanged page is repaired', () => {
    const good = extract(listStructure, products('1'));
    const broken = listStructure.map((field) =>
      field.name === 'products' ? { ...field, selector: 'div.products > article.product:first-child' } : field,
    );
    const healed = healStructure({
      config: { apiId: 'x', selector: 'body', structure: broken },
      html: products('1'),
      pageUrl: URL_BASE,
      expected: good,
    });
    expect(healed.data).toEqual(good);
  });

  it('no false alarm: the unchanged page, and a list that is shorter on another fetch, stay healthy', () => {
    const good = extract(listStructure, products('1'));
    const baseline = seedBaseline(listStructure, [good, extract(listStructure, products('1', 4))]);
    for (const n of [6, 5, 4, 3, 2])
      expect(judgeHealth(listStructure, extract(listStructure, products('1', n)), baseline).state, `${n} items`).toBe('healthy');
    expect(judgeHealth(listStructure, extract(listStructure, products('1', 1)), baseline).state).toBe('degraded');
    for (const [structure, html] of [
      [productStructure, product('1')],
      [listStructure, products('1')],
    ] as const)
      expect(judgeHealth(structure, extract(structure, html), seedBaseline(structure, [extract(structure, html)])).state).toBe('healthy');
  });
});
