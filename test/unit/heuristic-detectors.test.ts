import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FieldSchema, type Field } from '../../src/core/config/schema.js';
import { createHeuristicModel } from '../../src/core/models/heuristic/index.js';
import { parseHtml, selectIn } from '../../src/core/extract/page/dom.js';
import { verifyProposals } from '../../src/core/models/heuristic/verify.js';
import { compileStructure, selectSection } from '../../src/core/extract/engine/index.js';

const model = createHeuristicModel();
const URL_ = 'https://shop.example/catalogue/index.html';

async function generate(html: string, options: { selector?: string; rule?: string | null; url?: string } = {}) {
  const selector = options.selector ?? 'body';
  const url = options.url ?? URL_;
  const { structure } = await model.generate({
    sectionHtml: selectSection(html, selector).sectionHtml,
    pageHtml: html,
    pageUrl: url,
    selector,
    rule: options.rule ?? null,
  });
  const { data } = compileStructure({ selector, structure }).extract(html, url);
  return { structure, data };
}

function field(structure: Field[], name: string): Field {
  const found = structure.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no field ${name} in ${structure.map((f) => f.name).join(', ')}`);
  return found;
}

const page = (head: string, body: string) => `<!DOCTYPE html><html lang="en-GB"><head>${head}</head><body>${body}</body></html>`;

const cards = (count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `<div class="card"><a class="card-link" href="/p/${i}"><img src="/img/${i}.jpg" alt="x"></a><h3 class="card-title">Item ${i}</h3><span class="price">£${i + 1}.50</span></div>`,
  ).join('');

describe('heuristic model: page metadata', () => {
  const html = page(
    '<title>Shop – Home</title><meta name="description" content="All the things"><link rel="canonical" href="/home"><meta property="og:image" content="/og.png">',
    '<main><p>hello</p></main>',
  );

  it('proposes title, description, canonical URL, image and language, resolved against the page URL', async () => {
    const { structure, data } = await generate(html);
    expect(field(structure, 'canonicalUrl')).toMatchObject({
      selector: 'link[rel="canonical"]',
      attribute: 'href',
      transform: ['absoluteUrl'],
    });
    expect(data).toMatchObject({
      title: 'Shop – Home',
      description: 'All the things',
      canonicalUrl: 'https://shop.example/home',
      image: 'https://shop.example/og.png',
      language: 'en-GB',
    });
  });

  it('proposes no metadata for a narrowed section: every field comes from inside it (issue 17)', async () => {
    const { data } = await generate(html);
    expect(data).toMatchObject({ title: 'Shop – Home', description: 'All the things' });
    const narrowed = await generate(html, { selector: 'main' });
    expect(narrowed.data.title).toBeUndefined();
    expect(narrowed.data.description).toBeUndefined();
  });

  it('offers nothing for metadata the page lacks', async () => {
    const { structure } = await generate('<html><body><p>bare</p></body></html>');
    expect(structure.map((f) => f.name)).not.toContain('description');
    expect(structure.map((f) => f.name)).not.toContain('language');
  });
});

describe('heuristic model: schema.org', () => {
  it('reads a JSON-LD Product from an @graph with type-prefixed json paths, skipping page furniture and broken blocks', async () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'BreadcrumbList', itemListElement: [] },
        {
          '@type': 'Product',
          name: 'Desk Lamp',
          sku: 'DL-1',
          brand: { '@type': 'Brand', name: 'Lumo' },
          gtin13: '4006381333931',
          offers: { '@type': 'Offer', price: '39.90', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' },
        },
      ],
    };
    const html = page(
      `<script type="application/ld+json">{not json</script><script type="application/ld+json">${JSON.stringify(ld)}</script>`,
      '<h1>Desk Lamp</h1>',
    );
    const { structure, data } = await generate(html);
    const product = field(structure, 'product');
    expect(product.fields?.find((f) => f.name === 'price')).toMatchObject({
      type: 'number',
      selector: 'script[type="application/ld+json"]',
      transform: ['json:Product.offers.price'],
    });
    expect(data.product).toEqual({
      name: 'Desk Lamp',
      price: 39.9,
      currency: 'EUR',
      availability: 'InStock',
      sku: 'DL-1',
      brand: 'Lumo',
      gtin: '4006381333931',
    });
    expect(structure.map((f) => f.name)).not.toContain('breadcrumbList');
  });

  it('reads an Article headline, author and publication date', async () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Article',
      headline: 'Rain again',
      author: [{ '@type': 'Person', name: 'Jo Park' }],
      datePublished: '2026-01-02',
    };
    const { data } = await generate(page(`<script type="application/ld+json">${JSON.stringify(ld)}</script>`, '<p>text</p>'));
    expect(data.article).toEqual({ headline: 'Rain again', author: 'Jo Park', datePublished: '2026-01-02' });
  });

  it('reads other types generically by their scalar properties', async () => {
    const ld = {
      '@context': 'https://schema.org',
      '@type': 'Event',
      name: 'Jazz Night',
      startDate: '2026-12-04T20:00',
      location: { '@type': 'Place', name: 'The Cellar' },
      tags: ['a'],
    };
    const { data } = await generate(page(`<script type="application/ld+json">${JSON.stringify(ld)}</script>`, '<p>x</p>'));
    expect(data.event).toEqual({ name: 'Jazz Night', startDate: '2026-12-04T20:00', location: 'The Cellar' });
  });

  it('reads microdata of one product, flattening offers and keeping the product name apart from the brand name', async () => {
    const html = page(
      '',
      `<div itemscope itemtype="https://schema.org/Product"><div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Acme</span></div><h1 itemprop="name">Anvil</h1><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="USD"><span itemprop="price">$1,299.00</span></div></div>`,
    );
    const { structure, data } = await generate(html);
    expect(field(structure, 'product').fields?.map((f) => f.selector)).toContain(
      '[itemtype$="schema.org/Product"] [itemprop="offers"] [itemprop="price"]',
    );
    // The page shows the same price the markup states: what it shows stays beside it, in the one product object.
    expect(data.product).toEqual({ brand: 'Acme', name: 'Anvil', currency: 'USD', price: 1299, priceText: '$1,299.00' });
  });

  it('reads several microdata items of a type as an array', async () => {
    const items = ['Tea', 'Coffee', 'Cocoa']
      .map(
        (name, i) =>
          `<li itemscope itemtype="http://schema.org/Product"><span itemprop="name">${name}</span><span itemprop="price" content="${i + 2}.5">${i + 2},50 €</span></li>`,
      )
      .join('');
    const { structure, data } = await generate(page('', `<ul>${items}</ul>`));
    expect(field(structure, 'products').selector).toBe('[itemtype$="schema.org/Product"]');
    expect(data.products).toEqual([
      { name: 'Tea', price: 2.5 },
      { name: 'Coffee', price: 3.5 },
      { name: 'Cocoa', price: 4.5 },
    ]);
  });
});

describe('heuristic model: tables', () => {
  const table = `<table class="prices"><thead><tr><th>Name</th><th>Unit price (€)</th><th>Name</th></tr></thead><tbody>
    <tr><td><a href="/a">Alpha</a></td><td>1.234,50</td><td>x</td></tr><tr><td><a href="/b">Beta</a></td><td>12,00</td><td>y</td></tr><tr><td><a href="/c">Gamma</a></td><td>7,25</td><td>z</td></tr></tbody></table>`;

  it('makes an array of row objects keyed by deduplicated camelCased header cells, numbers and links included', async () => {
    const { structure, data } = await generate(page('', table));
    const rows = field(structure, 'rows');
    expect(rows.selector).toBe('table.prices tr:has(> td)');
    expect(rows.fields?.map((f) => f.name)).toEqual(['name', 'nameUrl', 'unitPrice', 'name2']);
    expect(data.rows).toEqual([
      { name: 'Alpha', nameUrl: 'https://shop.example/a', unitPrice: 1234.5, name2: 'x' },
      { name: 'Beta', nameUrl: 'https://shop.example/b', unitPrice: 12, name2: 'y' },
      { name: 'Gamma', nameUrl: 'https://shop.example/c', unitPrice: 7.25, name2: 'z' },
    ]);
  });

  it('leaves layout tables without header cells and one-row tables alone', async () => {
    const layout =
      '<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>';
    const { structure } = await generate(page('', layout));
    expect(structure.filter((f) => f.type === 'array')).toEqual([]);
  });
});

describe('heuristic model: repeated items', () => {
  it('turns three or more cards into an array with item-relative, class-based selectors', async () => {
    const { structure, data } = await generate(
      page(
        '',
        `<nav class="menu"><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li><li><a href="/c">C</a></li></ul></nav><section class="grid">${cards(3)}</section>`,
      ),
    );
    const cardsField = field(structure, 'items');
    expect(cardsField.selector).toBe('div.card');
    expect(cardsField.fields).toEqual([
      { name: 'url', type: 'url', selector: '.card-link', attribute: 'href', transform: ['absoluteUrl'] },
      { name: 'image', type: 'url', selector: 'a.card-link img', attribute: 'src', transform: ['absoluteUrl'] },
      { name: 'title', type: 'string', selector: '.card-title' },
      { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
    ]);
    expect((data.items as unknown[])[2]).toEqual({
      url: 'https://shop.example/p/2',
      image: 'https://shop.example/img/2.jpg',
      title: 'Item 2',
      price: 3.5,
    });
    // The menu is page furniture: not offered when the page has real content.
    expect(structure.filter((f) => f.type === 'array')).toHaveLength(1);
  });

  it('does not see a list in two items', async () => {
    const { structure } = await generate(page('', cards(2)));
    expect(structure.filter((f) => f.type === 'array')).toEqual([]);
  });

  it('falls back to structural selectors when items have no classes, and reads lazy images', async () => {
    const items = [1, 2, 3, 4]
      .map((i) => `<li><img data-src="/big/${i}.jpg" src="data:image/gif;base64,AA"><b>Name ${i}</b> <span>${i * 10} €</span></li>`)
      .join('');
    const { data } = await generate(page('', `<ul id="results">${items}</ul>`));
    expect(Object.values(data).find(Array.isArray)).toEqual(
      [1, 2, 3, 4].map((i) => ({ image: `https://shop.example/big/${i}.jpg`, text: `Name ${i}`, price: i * 10 })),
    );
  });

  it('reads plain text list items as an array of strings', async () => {
    const { data } = await generate(page('', '<ul class="ingredients"><li>2 eggs</li><li>1 cup flour</li><li>salt</li></ul>'));
    expect(data.ingredients).toEqual(['2 eggs', '1 cup flour', 'salt']);
  });

  it('reads the current price of items on sale, not the struck-out one', async () => {
    const items = [
      ['10', null],
      ['20', '15'],
      ['30', null],
    ]
      .map(
        ([was, now], i) =>
          `<div class="p"><h2>P${i}</h2><span class="price">${now ? `<del><span class="amount">$${was}</span></del> <ins><span class="amount">$${now}</span></ins>` : `<span class="amount">$${was}</span>`}</span></div>`,
      )
      .join('');
    const { data } = await generate(page('', items));
    expect((Object.values(data).find(Array.isArray) as Array<{ price: number }>).map((item) => item.price)).toEqual([10, 15, 30]);
  });
});

describe('heuristic model: key/value blocks and detail pages', () => {
  it('reads a definition list and a label table by their labels, named after the heading before them', async () => {
    const html = page(
      '',
      `<h2>Performance</h2><dl class="specs"><dt>Memory</dt><dd>16 GB</dd><dt>Storage:</dt><dd>512 GB</dd></dl>
      <section><h2>Physical data</h2><table class="kv"><tr><th>Weight</th><td>1.4 kg</td></tr><tr><th>Colour</th><td>Grey</td></tr></table></section>`,
    );
    const { structure, data } = await generate(html);
    expect(field(structure, 'performance').fields?.[1]).toEqual({
      name: 'storage',
      type: 'string',
      selector: 'dl.specs dt:contains("Storage") + dd',
    });
    expect(data).toMatchObject({ performance: { memory: '16 GB', storage: '512 GB' }, physicalData: { weight: '1.4 kg', colour: 'Grey' } });
  });

  it('finds the value by its label when the same template lists the specifications in another order', async () => {
    const first = page('', '<dl class="specs"><dt>Memory</dt><dd>16 GB</dd><dt>Storage</dt><dd>512 GB</dd></dl>');
    const other = page('', '<dl class="specs"><dt>Storage</dt><dd>1 TB</dd><dt>Colour</dt><dd>Blue</dd><dt>Memory</dt><dd>32 GB</dd></dl>');
    const { structure } = await generate(first);
    expect(compileStructure({ selector: 'body', structure }).extract(other, URL_).data).toMatchObject({
      details: { memory: '32 GB', storage: '1 TB' },
    });
  });

  it('proposes the price of a detail page, not the struck-out one, and none on a listing', async () => {
    const detail = await generate(
      page('', '<h1>Lamp</h1><p class="price-old"><del class="price">£99.00</del></p><p class="product-price">£79.00</p>'),
    );
    expect(detail.data.price).toBe(79);
    const listing = await generate(page('', cards(5)));
    expect(listing.structure.map((f) => f.name)).not.toContain('price');
  });

  it('splits links that every item has the same few times into one field per position', async () => {
    const items = [1, 2, 3]
      .map(
        (i) =>
          `<article class="repo"><h2><a href="/r${i}">repo ${i}</a></h2><div class="meta"><a class="muted" href="/r${i}/stars">${i}00</a><a class="muted" href="/r${i}/forks">${i}0</a></div></article>`,
      )
      .join('');
    const { data } = await generate(page('', items));
    const repos = Object.values(data).find(Array.isArray) as Array<Record<string, unknown>>;
    expect(Object.values(repos[1]!)).toEqual([
      'repo 2',
      'https://shop.example/r2',
      '200',
      'https://shop.example/r2/stars',
      '20',
      'https://shop.example/r2/forks',
    ]);
  });
});

describe('heuristic model: headings, rule and verification', () => {
  it('proposes the main heading', async () => {
    const { data } = await generate(page('', '<header><h1></h1></header><h1>Main title</h1>'));
    expect(data.heading).toBe('Main title');
  });

  it('uses the rule as keyword hints: "only" keeps the matching list and fields, and names the list after the rule', async () => {
    const html = page('<title>Books</title><meta name="description" content="A shop">', `<h1>Catalogue</h1>${cards(4)}`);
    const { structure } = await generate(html, { rule: 'only the book titles and prices' });
    expect(structure).toHaveLength(1);
    expect(structure[0]).toMatchObject({ name: 'books', type: 'array' });
    expect(structure[0]!.fields?.map((f) => f.name)).toEqual(['title', 'price']);
  });

  it('without "only", the rule reorders: matching fields first, others kept', async () => {
    const { structure } = await generate(page('', cards(4)), { rule: 'prices' });
    expect(structure[0]!.fields?.map((f) => f.name)).toEqual(['price', 'url', 'image', 'title']);
  });

  it('drops a proposed field whose selector extracts nothing', () => {
    const doc = parseHtml(page('<title>T</title>', '<p>x</p>'));
    const proposals = [
      { kind: 'metadata' as const, field: { name: 'title', type: 'string' as const, selector: 'head > title' }, score: 1, hints: '' },
      { kind: 'heading' as const, field: { name: 'ghost', type: 'string' as const, selector: 'h6.nowhere' }, score: 1, hints: '' },
      {
        kind: 'jsonld' as const,
        field: {
          name: 'obj',
          type: 'object' as const,
          fields: [
            { name: 'a', type: 'string' as const, selector: 'p' },
            { name: 'b', type: 'string' as const, selector: 'q' },
          ],
        },
        score: 1,
        hints: '',
      },
    ];
    const verified = verifyProposals(proposals, doc, URL_, 'body');
    expect(verified.map((p) => p.field)).toEqual([
      proposals[0]!.field,
      { name: 'obj', type: 'object', fields: [{ name: 'a', type: 'string', selector: 'p' }] },
    ]);
    expect(selectIn('h6.nowhere', doc)).toEqual([]);
  });

  it('copes with empty, broken and deeply nested pages, falling back to the section text', async () => {
    expect((await generate('')).structure).toEqual([]);
    const deep = `<html><body>${'<div>'.repeat(400)}<p>deep text</p>${'</div>'.repeat(400)}</body></html>`;
    const { structure, data } = await generate(deep);
    expect(structure).toEqual([{ name: 'text', type: 'string', selector: ':scope' }]);
    expect(data).toEqual({ text: 'deep text' });
    expect((await generate('<<<div class=">>><p>unclosed <b>bold')).structure).toEqual([]);
    // Past the document limits (deeper than a browser nests) generation says so rather than propose what
    // retrieval would refuse.
    const tooDeep = `<html><body>${'<div>'.repeat(1000)}<p>deep text</p>${'</div>'.repeat(1000)}</body></html>`;
    await expect(generate(tooDeep)).rejects.toMatchObject({
      code: 'EXTRACTION_LIMIT',
      message: expect.stringContaining('deeper than 512 levels (extraction.maxDepth'),
    });
    expect((await generate('<h1>No body</h1><ul><li>one</li><li>two</li><li>three</li></ul>')).data).toEqual({
      heading: 'No body',
      items: ['one', 'two', 'three'],
    });
  });

  it('fills model fields with nulls: the heuristic model never invents values', async () => {
    const { values } = await model.fill({
      sectionHtml: '<p>x</p>',
      pageUrl: URL_,
      fields: [
        { name: 'summary', type: 'string' },
        { name: 'mood', type: 'string' },
      ],
      jsonSchema: {},
      rule: null,
    });
    expect(values).toEqual({ summary: null, mood: null });
    expect(model.name).toBe('heuristic');
  });
});

describe('heuristic model: every evaluation page', () => {
  const evalDir = fileURLToPath(new URL('../fixtures/eval/', import.meta.url));
  const names = readdirSync(evalDir)
    .filter((name) => !name.startsWith('.'))
    .sort();

  it('is deterministic and proposes only schema-valid fields', async () => {
    for (const name of names) {
      const html = readFileSync(join(evalDir, name, 'page.html'), 'utf8');
      const { url, selector, rule } = JSON.parse(readFileSync(join(evalDir, name, 'expected.json'), 'utf8')) as {
        url: string;
        selector: string;
        rule: string | null;
      };
      const input = { sectionHtml: selectSection(html, selector).sectionHtml, pageHtml: html, pageUrl: url, selector, rule };
      const first = await createHeuristicModel().generate(input);
      const second = await createHeuristicModel().generate(input);
      expect(JSON.stringify(second), name).toBe(JSON.stringify(first));
      for (const proposed of first.structure) expect(FieldSchema.safeParse(proposed).success, `${name}: ${proposed.name}`).toBe(true);
      expect(first.structure.length, name).toBeGreaterThan(0);
    }
  });
});
