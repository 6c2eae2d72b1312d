import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { compileStructure } from '../../src/core/extract/engine/index.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * The general rules of issue 10, each on a page written for it: reading what a reader sees, tables as grids,
 * lists that are not one element with a shared class, and the main price of a product page.
 */
const URL_ = 'https://shop.example/page';
const page = (body: string, head = '<title>Fixture</title>') => htmlPage(body, head);
const generate = (html: string) => generateWithHeuristic(html, URL_);

const arrays = (structure: Field[]) => structure.filter((field) => field.type === 'array');
const rowsOf = (data: Record<string, unknown>, name: string) => data[name] as Array<Record<string, unknown>>;

describe('reading what a reader sees', () => {
  const sortable = page(`
    <h2>Prime ministers</h2>
    <table class="wikitable sortable">
      <tr><th>Name</th><th>Took office</th><th>Population</th></tr>
      <tr><td><span class="sortkey">Barton, Edmund</span>Edmund Barton</td><td><span style="display:none">01886-01-01-00001886</span>1886</td><td>1,379<sup class="reference"><a href="#cite-3">[3]</a></sup></td></tr>
      <tr><td><span class="sortkey">Deakin, Alfred</span>Alfred Deakin</td><td><span style="display: none;">01903-01-01</span>1903</td><td>2,001<sup>[a]</sup></td></tr>
      <tr><td><span hidden>Watson, Chris</span>Chris Watson<span class="sr-only"> (Labour)</span></td><td>1904</td><td>987</td></tr>
    </table>`);

  it('leaves hidden text, sort keys and footnote marks out of values, in retrieval and generation alike', async () => {
    const { structure, data } = await generate(sortable);
    const table = arrays(structure)[0]!;
    expect(table.name).toBe('primeMinisters');
    expect(rowsOf(data, table.name)).toEqual([
      { name: 'Edmund Barton', tookOffice: 1886, population: 1379 },
      { name: 'Alfred Deakin', tookOffice: 1903, population: 2001 },
      { name: 'Chris Watson', tookOffice: 1904, population: 987 },
    ]);
    // The engine alone, on a hand-written structure, reads the same.
    const { data: direct } = compileStructure({
      structure: [{ name: 'names', type: 'array', selector: 'td:nth-child(1)', items: { type: 'string' } }],
    }).extract(sortable, URL_);
    expect(direct.names).toEqual(['Edmund Barton', 'Alfred Deakin', 'Chris Watson']);
  });

  it('reads cents set as a superscript as the decimals of the price', () => {
    const html = page('<p class="price">€19<sup>99</sup></p><p class="note">Note<sup>12</sup></p>');
    const { data } = compileStructure({
      structure: [
        { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
        { name: 'text', type: 'string', selector: '.price' },
        { name: 'note', type: 'string', selector: '.note' },
      ],
    }).extract(html, URL_);
    expect(data).toEqual({ price: 19.99, text: '€19.99', note: 'Note12' });
  });
});

describe('tables read as grids', () => {
  it('names columns from two header rows with spans, copies row-spanning cells into every row, reads row headers', async () => {
    const html = page(`
      <h3>Singles</h3>
      <table>
        <tr><th rowspan="2">Year</th><th rowspan="2">Song</th><th colspan="2">Chart positions</th></tr>
        <tr><th>US</th><th>UK</th></tr>
        <tr><th>1991</th><td>"Don't Treat Me Bad"</td><td>19</td><td>71</td></tr>
        <tr><th rowspan="2">1992</th><td>"Love of a Lifetime"</td><td>5</td><td>40</td></tr>
        <tr><td>"All She Wrote"</td><td>58</td><td>56</td></tr>
        <tr><th colspan="4">Later singles</th></tr>
        <tr><th>1995</th><td>"I Live My Life for You"</td><td>26</td><td>—</td></tr>
      </table>`);
    const { structure, data } = await generate(html);
    const table = arrays(structure)[0]!;
    expect(table.name).toBe('singles');
    expect(table.fields!.map((f) => f.name)).toEqual(['year', 'song', 'chartPositionsUs', 'chartPositionsUk']);
    expect(rowsOf(data, 'singles')).toEqual([
      { year: 1991, song: '"Don\'t Treat Me Bad"', chartPositionsUs: 19, chartPositionsUk: '71' },
      { year: 1992, song: '"Love of a Lifetime"', chartPositionsUs: 5, chartPositionsUk: '40' },
      { year: 1992, song: '"All She Wrote"', chartPositionsUs: 58, chartPositionsUk: '56' },
      { year: 1995, song: '"I Live My Life for You"', chartPositionsUs: 26, chartPositionsUk: '—' },
    ]);
  });

  it('keeps what the text says: padded ranks and codes stay text, clean numbers become numbers', async () => {
    const html = page(`<table><tr><th>Rank</th><th>Code</th><th>Score</th><th>Price</th></tr>
      <tr><td>01</td><td>0042</td><td>1,379</td><td>1.234,50 €</td></tr>
      <tr><td>02</td><td>0043</td><td>12.5</td><td>12,00 €</td></tr>
      <tr><td>10</td><td>0100</td><td>-3</td><td>7,25 €</td></tr></table>`);
    const { data } = await generate(html);
    expect(rowsOf(data, 'rows')).toEqual([
      { rank: '01', code: '0042', score: 1379, price: 1234.5 },
      { rank: '02', code: '0043', score: 12.5, price: 12 },
      { rank: '10', code: '0100', score: -3, price: 7.25 },
    ]);
  });

  it('takes a first row of plain labels as the header, and allows short rows', async () => {
    const html = page(`<table class="intervals">
      <tr><td>interval name</td><td>size (steps)</td><td>just ratio</td><td>notes</td></tr>
      <tr><td>perfect fifth</td><td>42</td><td>3:2</td><td>consonant</td></tr>
      <tr><td>tritone</td><td>36</td><td>17:12</td></tr>
      <tr><td>septimal tritone</td><td>35</td><td>7:5</td><td></td></tr></table>`);
    const { data, structure } = await generate(html);
    const table = arrays(structure)[0]!;
    expect(rowsOf(data, table.name)).toEqual([
      { intervalName: 'perfect fifth', sizeSteps: 42, justRatio: '3:2', notes: 'consonant' },
      { intervalName: 'tritone', sizeSteps: 36, justRatio: '17:12', notes: null },
      { intervalName: 'septimal tritone', sizeSteps: 35, justRatio: '7:5', notes: null },
    ]);
  });

  it('offers every data table of an article, named from its caption or the heading before it, beside a long reference list', async () => {
    const refs = Array.from(
      { length: 40 },
      (_, i) =>
        `<li id="cite-${i}"><span class="citation">Author ${i}, "A long cited work number ${i}". Publisher. Retrieved 2011.</span></li>`,
    ).join('');
    const table = (rows: number, first: string) =>
      `<tr><th>Team</th><th>Points</th></tr>${Array.from({ length: rows }, (_, i) => `<tr><td>${first} ${i}</td><td>${10 * i}</td></tr>`).join('')}`;
    const html = `<h2>Standings</h2><table class="wikitable">${table(4, 'East')}</table><p>Notes.</p><table class="wikitable"><caption>West conference</caption>${table(3, 'West')}</table><h2>References</h2><ol class="references">${refs}</ol>`;
    const { structure, data } = await generate(html);
    const names = arrays(structure).map((field) => field.name);
    expect(names).toEqual(expect.arrayContaining(['standings', 'westConferences']));
    // The citations are furniture: never before (or instead of) the article's data.
    expect(names[0]).toBe('standings');
    expect(names).not.toContain('references');
    expect(rowsOf(data, 'standings')[0]).toEqual({ team: 'East 0', points: 0 });
    expect(rowsOf(data, 'westConferences')).toHaveLength(3);
  });
});

describe('lists that are not one element with a shared class', () => {
  const card = (i: number, cls = 'card') =>
    `<article class="${cls}"><h3><a href="/e/${i}">Event number ${i}</a></h3><p class="when">Friday ${i} July</p><p class="where">Hall ${i}, Main street</p></article>`;

  it('reads one listing split over several containers as one array', async () => {
    const rows = [0, 1, 2].map((row) => `<div class="row">${[0, 1, 2, 3].map((i) => card(row * 4 + i)).join('')}</div>`).join('');
    const { structure, data } = await generate(page(`<main><div class="listing">${rows}</div></main>`));
    const list = arrays(structure)[0]!;
    expect(rowsOf(data, list.name)).toHaveLength(12);
    expect(rowsOf(data, list.name)[11]).toMatchObject({ url: 'https://shop.example/e/11' });
  });

  it('keeps siblings styled otherwise (a featured card) and skips empty spacers between records', async () => {
    const items = [
      card(0, 'card card-featured promo'),
      '<div class="spacer"></div>',
      card(1),
      '<div class="spacer"></div>',
      card(2),
      card(3, 'highlight'),
      card(4),
    ];
    const { structure, data } = await generate(page(`<main><section class="events">${items.join('')}</section></main>`));
    const list = arrays(structure)[0]!;
    expect(rowsOf(data, list.name)).toHaveLength(5);
    expect(list.fields!.length).toBeGreaterThanOrEqual(3);
  });

  it('does not take a list for page chrome because of a layout modifier (product-list--with-sidebar)', async () => {
    const products = Array.from(
      { length: 6 },
      (_, i) =>
        `<div class="product-item"><a href="/p/${i}">Product ${i}</a><span class="price">$${i + 5}.00</span><p>Some description of product ${i}</p></div>`,
    ).join('');
    const { structure } = await generate(page(`<div class="product-list product-list--with-sidebar">${products}</div>`));
    const list = arrays(structure)[0]!;
    expect(list.selector).toContain('product-item');
    expect(list.fields!.map((f) => f.name)).toEqual(expect.arrayContaining(['price']));
  });

  it('offers a large navigation last, after the page data, when it outnumbers every content region', async () => {
    const nav = `<nav class="site-nav"><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/c/${i}">Category ${i}</a></li>`).join('')}</ul></nav>`;
    const products = Array.from(
      { length: 5 },
      (_, i) =>
        `<div class="product"><a href="/p/${i}">Product ${i}</a><span class="price">$${i + 5}.00</span><p>Description ${i} of this product</p></div>`,
    ).join('');
    const { structure, data } = await generate(page(`${nav}<main><div class="grid">${products}</div></main>`));
    const lists = arrays(structure);
    expect(lists[0]!.selector).toContain('product');
    expect(lists[lists.length - 1]!.selector).toContain('li');
    expect(rowsOf(data, lists[lists.length - 1]!.name)).toHaveLength(30);
  });
});

describe('the main price of a product page without schema.org data', () => {
  const related = Array.from(
    { length: 4 },
    (_, i) => `<div class="tile"><a href="/p/${i}">Other watch ${i}</a><span class="tile-price">€${20 + i},99</span></div>`,
  ).join('');
  const html = page(`
    <header><span class="promo">Free shipping from €50</span></header>
    <main>
      <h1>Casio Pro Trek PRW-3100</h1>
      <div class="brand">Casio</div>
      <p class="ref">Ref: CA-304103</p>
      <div class="buybox">
        <s class="was">€299,00</s>
        <span class="now">EUR259.00</span>
        <span class="unit">€2,59 / 100 g</span>
        <span class="instalments">3 x €86,33</span>
        <span class="stock">In stock</span>
        <button class="add-to-cart">Add to cart</button>
      </div>
      <section class="related"><h2>You may also like</h2>${related}</section>
    </main>`);

  it('finds the price by the title and buy button, with its text, currency, old price and product facts', async () => {
    const { data } = await generate(html);
    expect(data).toMatchObject({
      heading: 'Casio Pro Trek PRW-3100',
      price: 259,
      priceText: 'EUR259.00',
      currency: 'EUR',
      oldPrice: 299,
      brand: 'Casio',
      sku: 'CA-304103',
      availability: 'InStock',
    });
  });

  it('reads local currency abbreviations and split prices', async () => {
    const rupees = page(`<h1>Infinix Hot 10</h1><div><span class="amount">Rs 23,450</span><a class="btn">Buy now</a></div>`);
    // A currency is offered as an ISO code only when the price names one: `Rs` and `£` alone say too little.
    const rupeeData = (await generate(rupees)).data;
    expect(rupeeData).toMatchObject({ price: 23450, priceText: 'Rs 23,450' });
    expect(rupeeData.currency).toBeUndefined();
    const split = page(`<h1>Kettle</h1><p class="cost">£19<sup>99</sup></p><button>Add to basket</button>`);
    expect((await generate(split)).data).toMatchObject({ price: 19.99, priceText: '£19.99' });
  });
});
