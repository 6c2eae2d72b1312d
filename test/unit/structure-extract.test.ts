import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { compileStructure, parseHtml } from '../../src/core/extract/engine/index.js';

const listing = readFileSync(new URL('../fixtures/html/structure-listing.html', import.meta.url), 'utf8');
// The page was asked for at one address and redirected to another: relative URLs resolve against the final one.
const FINAL_URL = 'https://www.shop.example/list/page-1.html';

function extract(structure: Field[], html = listing, selector?: string) {
  return compileStructure({ selector, structure }).extract(html, FINAL_URL);
}

describe('structure extraction: scalars and types', () => {
  test('text is whitespace-collapsed; blocks and <br> separate words; attributes are read raw', () => {
    const { data } = extract([
      { name: 'title', type: 'string', selector: 'h1' },
      { name: 'lines', type: 'string', selector: 'main > p:last-of-type' },
      { name: 'blocks', type: 'string', selector: '.blocks' },
      { name: 'description', type: 'string', selector: 'meta[name=description]', attribute: 'content' },
      { name: 'described', type: 'string', selector: 'meta[name=description]', attribute: 'content', transform: ['trim'] },
    ]);
    expect(data).toEqual({
      title: 'All products',
      lines: 'First second',
      blocks: 'a b',
      description: '  All the   books ',
      described: 'All the   books',
    });
  });

  test('every scalar type is coerced after transforms', () => {
    const { data } = extract([
      { name: 'results', type: 'integer', selector: '.count strong' },
      { name: 'price', type: 'number', selector: '.price' },
      { name: 'inStock', type: 'boolean', selector: '.availability' },
      { name: 'added', type: 'date', selector: '.date' },
      { name: 'link', type: 'url', selector: 'h3 a', attribute: 'href' },
      { name: 'stars', type: 'integer', selector: '.star-rating', attribute: 'data-stars' },
      { name: 'starsExact', type: 'number', selector: '.star-rating', attribute: 'data-stars' },
    ]);
    expect(data).toEqual({
      results: 1000,
      price: 51.77,
      inStock: true,
      added: '2026-11-22',
      // <base href="/catalogue/"> resolved against the redirected final URL, then the link against it.
      link: 'https://www.shop.example/catalogue/a-light-in-the-attic_1000/index.html',
      stars: 3,
      starsExact: 3.9,
    });
  });

  test('absoluteUrl and url without <base> resolve against the final URL, not the requested one', () => {
    const html = '<a href="../item/7?x=1">x</a><img src="//cdn.example/p.png"><a class=abs href="https://other.example/">o</a>';
    const { data } = extract(
      [
        { name: 'item', type: 'string', selector: 'a', attribute: 'href', transform: ['absoluteUrl'] },
        { name: 'image', type: 'url', selector: 'img', attribute: 'src' },
        { name: 'other', type: 'url', selector: 'a.abs', attribute: 'href' },
      ],
      html,
    );
    expect(data).toEqual({
      item: 'https://www.shop.example/item/7?x=1',
      image: 'https://cdn.example/p.png',
      other: 'https://other.example/',
    });
  });

  test('regex, number, integer, boolean and date transforms chain in order', () => {
    const { data } = extract([
      { name: 'shown', type: 'integer', selector: '.count', transform: ['regex:showing \\d+ to (\\d+)', 'integer'] },
      { name: 'total', type: 'string', selector: '.count', transform: ['regex:^([\\d,]+)'] },
      { name: 'stock', type: 'integer', selector: '.availability', transform: ['regex:\\((\\d+) available\\)'] },
      { name: 'none', type: 'string', selector: '.count', transform: ['regex:(nomatch)'] },
      { name: 'rating', type: 'string', selector: '.star-rating', attribute: 'class', transform: ['regex:star-rating (\\w+)'] },
      // The first article has no d/d/yyyy date, so the second one's is taken: "/" reads month first.
      { name: 'slashDate', type: 'date', selector: 'article', transform: ['regex:(\\d\\d/\\d\\d/\\d{4})'] },
    ]);
    expect(data).toEqual({ shown: 20, total: '1,000', stock: 22, none: null, rating: 'Three', slashDate: '2025-11-05' });
  });

  test('the first match that yields a value wins; a matched but empty element gives way to the next', () => {
    const html = '<p class=p></p><p class=p> </p><p class=p>€ 9,99</p><p class=p>1</p>';
    expect(extract([{ name: 'price', type: 'number', selector: '.p' }], html).data).toEqual({ price: 9.99 });
  });
});

describe('structure extraction: JSON', () => {
  test('JSON-LD with @graph: type-prefixed paths find the typed object; arrays are looked into', () => {
    const ld = 'script[type="application/ld+json"]';
    const { data } = extract([
      { name: 'name', type: 'string', selector: ld, transform: ['json:Product.name'] },
      { name: 'price', type: 'number', selector: ld, transform: ['json:Product.offers.price'] },
      { name: 'currency', type: 'string', selector: ld, transform: ['json:Product.offers.priceCurrency'] },
      { name: 'available', type: 'boolean', selector: ld, transform: ['json:Offer.availability'] },
      { name: 'brand', type: 'string', selector: ld, transform: ['json:Product.brand'] },
      { name: 'site', type: 'url', selector: ld, transform: ['json:WebSite.url'] },
      { name: 'firstImage', type: 'url', selector: ld, transform: ['json:Product.image[1]'] },
      { name: 'images', type: 'array', selector: ld, items: { type: 'url', transform: ['json:Product.image'] } },
      { name: 'missing', type: 'string', selector: ld, transform: ['json:Review.author'] },
    ]);
    expect(data).toEqual({
      name: 'A Light in the Attic',
      price: 51.77,
      currency: 'GBP',
      available: true,
      brand: 'Acme',
      site: 'https://shop.example/',
      firstImage: 'https://www.shop.example/catalogue/img/two.jpg',
      images: ['https://www.shop.example/catalogue/img/one.jpg', 'https://www.shop.example/catalogue/img/two.jpg'],
      missing: null,
    });
  });

  test('__NEXT_DATA__: plain paths, numeric segments, and string values kept exactly (no whitespace collapse)', () => {
    const next = 'script#__NEXT_DATA__';
    const { data } = extract([
      { name: 'page', type: 'integer', selector: next, transform: ['json:props.pageProps.page.number'] },
      { name: 'total', type: 'number', selector: next, transform: ['json:props.pageProps.page.total', 'number'] },
      { name: 'firstTag', type: 'string', selector: next, transform: ['json:props.pageProps.tags.0'] },
      { name: 'note', type: 'string', selector: next, transform: ['json:props.pageProps.note'] },
      { name: 'tags', type: 'array', selector: next, items: { type: 'string', transform: ['json:props.pageProps.tags'] } },
    ]);
    expect(data).toEqual({ page: 2, total: 1234.5, firstTag: 'fiction', note: 'two  spaces\tand a tab', tags: ['fiction', 'poetry'] });
  });

  test('embedded state cut out of a script by regex, then read as JSON with its whitespace intact', () => {
    const html = '<script>window.__STATE__ = {"user": {"name": "Ann  Lee"},\n "cart": {"total": 3}};</script>';
    const { data } = extract(
      [
        { name: 'user', type: 'string', selector: 'script', transform: ['regex:__STATE__ = (\\{[\\s\\S]*\\});', 'json:user.name'] },
        { name: 'total', type: 'integer', selector: 'script', transform: ['regex:__STATE__ = (\\{[\\s\\S]*\\});', 'json:cart.total'] },
      ],
      html,
    );
    expect(data).toEqual({ user: 'Ann  Lee', total: 3 });
  });

  test('JSON wrapped in an HTML comment and several JSON-LD blocks: the one holding the type is used', () => {
    const html = `<script type="application/ld+json"><!-- {"@type":"Organization","name":"Org"} --></script>
      <script type="application/ld+json">[{"@type":"http://schema.org/Product","name":"Widget","offers":{"price":12}}]</script>`;
    const ld = 'script[type="application/ld+json"]';
    const { data } = extract(
      [
        { name: 'org', type: 'string', selector: ld, transform: ['json:Organization.name'] },
        { name: 'product', type: 'string', selector: ld, transform: ['json:Product.name'] },
        { name: 'price', type: 'number', selector: ld, transform: ['json:Product.offers.price'] },
      ],
      html,
    );
    expect(data).toEqual({ org: 'Org', product: 'Widget', price: 12 });
  });
});

describe('structure extraction: nesting, order, emptiness', () => {
  const books: Field = {
    name: 'books',
    type: 'array',
    selector: 'article.product',
    fields: [
      { name: 'title', type: 'string', selector: 'h3 a', attribute: 'title' },
      { name: 'url', type: 'url', selector: 'h3 a', attribute: 'href' },
      { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
      { name: 'tags', type: 'array', selector: '.tags li', items: { type: 'string' } },
      {
        name: 'meta',
        type: 'object',
        fields: [{ name: 'rating', type: 'string', selector: '.star-rating', attribute: 'class', transform: ['regex:star-rating (\\w+)'] }],
      },
    ],
  };

  test('arrays of objects with arrays of scalars inside; items that carry nothing are dropped', () => {
    const { data } = extract([books]);
    expect(data.books).toEqual([
      {
        title: 'A Light in the Attic',
        url: 'https://www.shop.example/catalogue/a-light-in-the-attic_1000/index.html',
        price: 51.77,
        tags: ['poetry', 'classics'],
        meta: { rating: 'Three' },
      },
      {
        title: 'Tipping the Velvet',
        url: 'https://www.shop.example/catalogue/tipping-the-velvet_999/index.html',
        price: 53.74,
        tags: ['romance'],
        meta: { rating: 'One' },
      },
    ]);
  });

  test('arrays of objects nest inside arrays of objects; script and style text is not page text', () => {
    const html = `<section class=cat><h2>Poetry <script>track()</script><style>.x{}</style></h2>
        <div class=book><b>A</b><i>x</i><i>y</i></div><div class=book><b>B</b></div></section>
      <section class=cat><h2>Travel</h2><div class=book><b>C</b><i>z</i></div></section>`;
    const { data } = extract(
      [
        {
          name: 'categories',
          type: 'array',
          selector: '.cat',
          fields: [
            { name: 'name', type: 'string', selector: 'h2' },
            {
              name: 'books',
              type: 'array',
              selector: '.book',
              fields: [
                { name: 'title', type: 'string', selector: 'b' },
                { name: 'tags', type: 'array', selector: 'i', items: { type: 'string' } },
              ],
            },
          ],
        },
      ],
      html,
    );
    expect(data).toEqual({
      categories: [
        {
          name: 'Poetry',
          books: [
            { title: 'A', tags: ['x', 'y'] },
            { title: 'B', tags: [] },
          ],
        },
        { name: 'Travel', books: [{ title: 'C', tags: ['z'] }] },
      ],
    });
  });

  test('relative selectors and :scope address the item itself and its children', () => {
    const { data } = extract([
      {
        name: 'rows',
        type: 'array',
        selector: '#countries tr',
        fields: [
          { name: 'country', type: 'string', selector: ':scope > td:nth-child(1)' },
          { name: 'population', type: 'integer', selector: '> td:nth-child(2)' },
        ],
      },
      { name: 'links', type: 'array', selector: 'h3 a', fields: [{ name: 'href', type: 'url', selector: ':scope', attribute: 'href' }] },
    ]);
    // The header row has <th>, not <td>: it carries nothing and is dropped.
    expect(data.rows).toEqual([
      { country: 'Andorra', population: 84000 },
      { country: 'Belgium', population: 11589623 },
    ]);
    expect(data.links).toEqual([
      { href: 'https://www.shop.example/catalogue/a-light-in-the-attic_1000/index.html' },
      { href: 'https://www.shop.example/catalogue/tipping-the-velvet_999/index.html' },
    ]);
  });

  test('keys come out in structure order at every level, whatever the page order', () => {
    const { data } = extract([
      { name: 'zeta', type: 'string', selector: 'footer a' },
      { name: 'alpha', type: 'string', selector: 'h1' },
      { ...books, fields: [...books.fields!].reverse() },
    ]);
    expect(Object.keys(data)).toEqual(['zeta', 'alpha', 'books']);
    expect(Object.keys((data.books as Array<Record<string, unknown>>)[0]!)).toEqual(['meta', 'tags', 'price', 'url', 'title']);
  });

  test('nothing matched: null for scalars and objects with a selector, [] for arrays, empty reported', () => {
    const result = extract([
      { name: 'title', type: 'string', selector: 'h2.none' },
      { name: 'list', type: 'array', selector: '.none', items: { type: 'string' } },
      { name: 'items', type: 'array', selector: '.none', fields: [{ name: 'a', type: 'string', selector: 'a' }] },
      { name: 'box', type: 'object', selector: '.none', fields: [{ name: 'a', type: 'string', selector: 'a' }] },
      { name: 'group', type: 'object', fields: [{ name: 'a', type: 'string', selector: '.none' }] },
    ]);
    expect(result.data).toEqual({ title: null, list: [], items: [], box: null, group: { a: null } });
    expect(result.empty).toBe(true);
    expect(result.missingRequired).toEqual([]);
    expect(
      extract([
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'x', type: 'string', selector: '.none' },
      ]).empty,
    ).toBe(false);
  });

  test('required fields that come out empty are listed by path; inside arrays they filter items', () => {
    const result = extract([
      { name: 'title', type: 'string', selector: 'h1', required: true },
      { name: 'subtitle', type: 'string', selector: 'h2', required: true },
      { name: 'box', type: 'object', selector: 'main', fields: [{ name: 'lost', type: 'number', selector: '.nothing', required: true }] },
      { name: 'list', type: 'array', selector: '.nothing', required: true, items: { type: 'string' } },
      {
        name: 'stocked',
        type: 'array',
        selector: 'article.product',
        fields: [
          { name: 'title', type: 'string', selector: 'h3 a', attribute: 'title' },
          { name: 'sale', type: 'boolean', selector: '.availability', required: true, transform: ['regex:(In stock)', 'boolean'] },
        ],
      },
    ]);
    expect(result.missingRequired).toEqual(['subtitle', 'box.lost', 'list']);
    expect(result.data.stocked).toEqual([{ title: 'A Light in the Attic', sale: true }]);
    expect(result.empty).toBe(false);
  });

  test('fields without selector are model fields: empty in data, listed with their paths', () => {
    const compiled = compileStructure({
      structure: [
        { name: 'title', type: 'string', selector: 'h1' },
        { name: 'summary', type: 'string', description: 'one sentence', required: true },
        { name: 'topics', type: 'array', items: { type: 'string' } },
        { name: 'details', type: 'object', fields: [{ name: 'mood', type: 'string' }] },
        {
          name: 'books',
          type: 'array',
          selector: 'article.product',
          fields: [
            { name: 'name', type: 'string', selector: 'h3 a' },
            { name: 'blurb', type: 'string' },
          ],
        },
      ],
    });
    expect(compiled.modelFields.map(({ path, inArray }) => ({ path, inArray }))).toEqual([
      { path: 'summary', inArray: false },
      { path: 'topics', inArray: false },
      { path: 'details.mood', inArray: false },
      { path: 'books.blurb', inArray: true },
    ]);
    const result = compiled.extract(listing, FINAL_URL);
    expect(result.data).toMatchObject({ title: 'All products', summary: null, topics: [], details: { mood: null } });
    expect(result.data.books).toEqual([
      { name: 'A Light in the ...', blurb: null },
      { name: 'Tipping the ...', blurb: null },
    ]);
    expect(result.missingRequired).toEqual(['summary']);
    // After the model fills its fields, assess tells whether the data is now complete.
    expect(compiled.assess({ ...result.data, summary: 'Books.' }).missingRequired).toEqual([]);
  });

  test('the section selector narrows top-level fields; page-level facts outside it are still found', () => {
    const structure: Field[] = [
      { name: 'firstLink', type: 'string', selector: 'a' },
      { name: 'title', type: 'string', selector: 'h1' },
      { name: 'sku', type: 'string', selector: 'script[type="application/ld+json"]', transform: ['json:Product.sku'] },
    ];
    expect(extract(structure, listing, '#countries').data).toEqual({
      firstLink: 'A Light in the ...',
      title: 'All products',
      sku: 'a897fe39',
    });
    expect(extract(structure, listing, 'footer').data).toEqual({ firstLink: 'next', title: 'All products', sku: 'a897fe39' });
  });

  test('a fragment without <body> is still searched with the default section, and extractFromDocument reuses a parse', () => {
    const compiled = compileStructure({ structure: [{ name: 'name', type: 'string', selector: 'b' }] });
    expect(compiled.extract('<b>bold</b>', FINAL_URL).data).toEqual({ name: 'bold' });
    expect(compiled.extractFromDocument(parseHtml('<div><b>again</b></div>'), FINAL_URL).data).toEqual({ name: 'again' });
  });

  test('a field named __proto__ is an ordinary key', () => {
    const { data } = extract([{ name: '__proto__', type: 'string', selector: 'h1' }]);
    expect(Object.keys(data)).toEqual(['__proto__']);
    expect(JSON.stringify(data)).toBe('{"__proto__":"All products"}');
  });

  test('an invalid selector or transform fails compilation with CONFIG_INVALID and the JSON path', () => {
    expect(() => compileStructure({ structure: [{ name: 'a', type: 'string', selector: 'div[' }] })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', context: expect.objectContaining({ path: '$.structure[0].selector' }) }),
    );
    expect(() => compileStructure({ structure: [{ name: 'a', type: 'string', selector: 'div', transform: ['regex:(a)(b)'] }] })).toThrow(
      /exactly one capture group/,
    );
  });
});
