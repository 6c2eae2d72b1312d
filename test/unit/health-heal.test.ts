import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { healStructure } from '../../src/core/health/heal.js';
import { compileStructure } from '../../src/core/extract/engine/index.js';

/** Value-anchored repair on a page before and after a redesign written for the test. */
const BOOKS = [
  { title: 'A Light in the Attic', price: '51.77', url: '/books/light' },
  { title: 'Tipping the Velvet', price: '53.74', url: '/books/velvet' },
  { title: 'Soumission', price: '50.10', url: '/books/soumission' },
];
const before = `<html><body><h1 class="shop-title">Books</h1><section class="catalogue">${BOOKS.map((b) => `<article class="book"><h3 class="book-title"><a href="${b.url}">${b.title}</a></h3><p class="book-price">£${b.price}</p></article>`).join('')}</section></body></html>`;
const after = `<html><body><h1 class="Header_title__Zz12a">Books</h1><div class="Layout_wrapper__Qq8s1"><ul class="Grid_list__Lm4k2">${BOOKS.map((b) => `<li class="Card_root__x7Hq2"><div class="Card_price__Pp91z"><span>£${b.price}</span></div><h4 class="Card_name__aB3kd"><a href="${b.url}">${b.title}</a></h4></li>`).join('')}</ul></div></body></html>`;
const structure: Field[] = [
  { name: 'title', type: 'string', selector: 'h1.shop-title' },
  {
    name: 'books',
    type: 'array',
    selector: 'article.book',
    fields: [
      { name: 'title', type: 'string', selector: '.book-title a' },
      { name: 'url', type: 'url', selector: '.book-title a', attribute: 'href', transform: ['absoluteUrl'] },
      { name: 'price', type: 'number', selector: '.book-price', transform: ['number'] },
    ],
  },
];
const URL_ = 'https://shop.example/';

describe('heal (value anchoring)', () => {
  it('re-derives the container and every field after classes, wrappers, tags, order and nesting changed', () => {
    const expected = compileStructure({ structure }).extract(before, URL_).data;
    expect((expected.books as unknown[]).length).toBe(3);
    expect(compileStructure({ structure }).extract(after, URL_).data).toMatchObject({ title: null, books: [] });
    const healed = healStructure({ config: { apiId: 'books', selector: 'body', structure }, html: after, pageUrl: URL_, expected });
    expect(healed.unrepaired).toEqual([]);
    expect(healed.recovery).toEqual({ found: 10, total: 10 });
    expect(healed.data).toEqual(expected);
    // Names, types, transforms and order are kept; only selectors changed.
    expect(healed.structure.map((f) => f.name)).toEqual(['title', 'books']);
    expect(healed.structure[1]!.fields!.map((f) => [f.name, f.type, f.attribute, f.transform])).toEqual(
      structure[1]!.fields!.map((f) => [f.name, f.type, f.attribute, f.transform]),
    );
    expect(healed.repaired).toEqual(expect.arrayContaining(['title', 'books', 'books.title', 'books.price']));
  });

  it('names the fields it cannot repair and keeps their selectors', () => {
    const expected = { title: 'Books', books: [{ title: 'A Light in the Attic', url: 'https://shop.example/books/light', price: 99.99 }] };
    const healed = healStructure({ config: { apiId: 'books', selector: 'body', structure }, html: after, pageUrl: URL_, expected });
    expect(healed.unrepaired).toEqual(['books.price']);
    expect(healed.structure[1]!.fields!.find((f) => f.name === 'price')!.selector).toBe('.book-price');
    expect(healed.recovery.found).toBeLessThan(healed.recovery.total);
  });
});
