import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * A detail page's facts in the markup pages use for them (issue 46 item 2): each a field named from its label,
 * selected by its label and read without it; the main entity's lines (the "by …" line, the subtitle) too; and
 * the main entity's facts before related products. Each page is written for the rule it shows.
 */
const generate = (html: string) => generateWithHeuristic(html, 'https://books.example/book/1');

const facts = (structure: Field[]) => structure.find((field) => field.name === 'facts');

const related = `<section class="related"><h2>You may also like</h2>
  <div class="card"><a href="/b/2">Book two</a><p><b>Publisher:</b> Other House</p><span class="price">$10.00</span></div>
  <div class="card"><a href="/b/3">Book three</a><p><b>Publisher:</b> Third House</p><span class="price">$11.00</span></div>
  <div class="card"><a href="/b/4">Book four</a><p><b>Publisher:</b> Fourth House</p><span class="price">$12.00</span></div>
</section>`;

describe('label and value pairs of a detail page', () => {
  it('reads li, p and div pairs with a strong, b or span label, and "Label: value" lines, named from the label', async () => {
    const html = htmlPage(`<main><div class="book" id="product-9780000000001"><h1>The Quiet Harbour</h1>
      <ul class="facts"><li><strong>Publisher</strong>: Harbour House</li><li><strong>Pages</strong>: 320</li>
      <li><b>ISBN-13:</b> 9780000000001</li><li><span class="label">Language:</span> English</li></ul>
      <div class="row"><div class="k">Format</div><div class="v">Paperback</div></div>
      <p>Published: 12 March 2021</p></div>${related}</main>`);
    const { structure, data } = await generate(html);
    expect(data.facts).toEqual({
      publisher: 'Harbour House',
      pages: '320',
      isbn13: '9780000000001',
      language: 'English',
      format: 'Paperback',
      published: '12 March 2021',
    });
    // Selected by the label, never by the value or an id of this one book.
    const selectors = facts(structure)!
      .fields!.map((field) => field.selector)
      .join(' ');
    expect(selectors).not.toMatch(/9780000000001|Harbour|nth-/);
    expect(selectors).toContain(':contains("Publisher")');
  });

  it('reads the "by" line and a subtitle as the main entity\'s author and subtitle, before related products', async () => {
    const html = htmlPage(`<header><nav><a href="/">Home</a></nav></header><main><h1>The Quiet Harbour</h1>
      <p class="subtitle">A Novel of the Sea</p><p class="byline">by <a href="/author/jane-doe">Jane Doe</a> · 12 March 2021</p>
      <ul><li><strong>Publisher:</strong> Harbour House</li><li><strong>Pages:</strong> 320</li></ul>${related}</main>`);
    const { structure, data } = await generate(html);
    expect(data.facts).toMatchObject({ author: 'Jane Doe', subtitle: 'A Novel of the Sea', publisher: 'Harbour House' });
    const names = structure.map((field) => field.name);
    expect(names.indexOf('facts')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('facts')).toBeLessThan(
      names.findIndex((name) => name !== 'facts' && structure[names.indexOf(name)]!.type === 'array'),
    );
  });

  it("takes no label of a related product's card, nor a label every review repeats, for the page's fact", async () => {
    const reviews = [1, 2, 3].map((n) => `<div class="review"><p>Rating: ${n} stars</p><p>Great book number ${n}.</p></div>`).join('');
    const html = htmlPage(`<h1>The Quiet Harbour</h1><p class="intro">A story of a harbour town.</p>
      <p><b>Pages:</b> 320</p><p>Edition: Second</p>${reviews}${related}`);
    const { data } = await generate(html);
    expect(data.facts).toEqual({ pages: '320', edition: 'Second' });
  });

  it('leaves product facts (SKU, brand, stock) and prices to the product, and reads nothing on a page without a heading', async () => {
    const product = htmlPage(`<h1>Steel Kettle</h1><span class="price">$20.00</span><button>Add to cart</button>
      <ul><li><b>Brand:</b> Acme</li><li><b>SKU:</b> KT-100</li><li><b>List price:</b> $30.00</li><li><b>Capacity:</b> 1.7 l</li>
      <li><b>Colour:</b> Silver</li></ul>`);
    const { data } = await generate(product);
    expect(data.facts).toEqual({ capacity: '1.7 l', colour: 'Silver' });
    expect(data).toMatchObject({ price: 20, brand: 'Acme', sku: 'KT-100' });
    const headless = htmlPage(`<div><p><b>Pages:</b> 320</p><p><b>Edition:</b> Second</p></div>`);
    expect((await generate(headless)).data.facts).toBeUndefined();
  });
});
