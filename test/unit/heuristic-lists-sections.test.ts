import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * Issue 36, lists: one listing whose records sit in several sections (shelves under their own headings,
 * carousels, rows) is one list of every record, with each record's title; not one short list per section.
 */
const URL_ = 'https://news.example/';
const generate = (html: string) => generateWithHeuristic(html, URL_);
const arrays = (structure: Field[]) => structure.filter((field) => field.type === 'array');
const rowsOf = (data: Record<string, unknown>, name: string) => data[name] as Array<Record<string, unknown>>;
const menu =
  '<header><nav><ul><li><a href="/">Home</a></li><li><a href="/a">World</a></li><li><a href="/b">Sport</a></li></ul></nav></header>';

describe('one list spread over sections', () => {
  it('reads 40 records in 6 carousels of unequal size, each with an empty spacer slide, as one list of 40 with every title', async () => {
    const sizes = [3, 5, 8, 4, 12, 8];
    // Generated class names, one per carousel (CSS-in-JS): nothing but the path says the cards are alike.
    const hashes = ['css-1k2j3h', 'css-9x8y7z', 'css-4f5g6h', 'css-0p9o8i', 'css-3e4r5t', 'css-7u8i9o'];
    let n = 0;
    const shelves = sizes
      .map((size, s) => {
        const cards = Array.from({ length: size }, () => {
          const i = n++;
          return `<li class="${hashes[s]}"><a href="/s/${i}"><div><h3>Headline ${i} about the town</h3><p>Summary ${i} of the story in a sentence.</p></div></a></li>`;
        }).join('');
        return `<div class="shelf"><div class="shelf-head"><h2>Topic ${s}</h2><a href="/t/${s}">See all</a></div><div class="carousel"><div class="viewport"><ul class="track"><li class="css-spacer" aria-hidden="true"></li>${cards}</ul><button>Next</button></div></div></div>`;
      })
      .join('');
    const { structure, data } = await generate(
      htmlPage(`${menu}<main><div class="page"><div class="shelves">${shelves}</div></div></main>`),
    );
    const list = arrays(structure)[0]!;
    const rows = rowsOf(data, list.name);
    expect(rows).toHaveLength(40);
    expect(rows.map((row) => row.title)).toEqual(Array.from({ length: 40 }, (_, i) => `Headline ${i} about the town`));
    expect(rows[39]).toMatchObject({ url: 'https://news.example/s/39', description: 'Summary 39 of the story in a sentence.' });
    // Not also offered section by section.
    expect(arrays(structure).filter((field) => rowsOf(data, field.name).length <= 12 && rowsOf(data, field.name).length >= 3)).toEqual([]);
  });

  it('reads sections of the same cards in the same kind of container as one list, however deep they sit', async () => {
    const sizes = [3, 4, 4, 3];
    let n = 0;
    const sections = sizes
      .map((size, s) => {
        const deals = Array.from({ length: size }, () => {
          const i = n++;
          // Each card lists its facts: lists inside every record are parts of records, not a region.
          return `<div class="deal"><a class="deal-link" href="/d/${i}">Deal ${i}: a week by the sea</a><ul class="facts"><li class="fact">Day ${i}</li><li class="fact">Room ${i}</li><li class="fact">Bus ${i}</li></ul></div>`;
        }).join('');
        return `<section><h2>Deals of region ${s}</h2><div><div class="rail"><div class="viewport"><div class="deal-row">${deals}</div></div></div></div></section>`;
      })
      .join('');
    const { structure, data } = await generate(htmlPage(`${menu}<main><div class="deals">${sections}</div></main>`));
    const list = arrays(structure)[0]!;
    const rows = rowsOf(data, list.name);
    expect(rows).toHaveLength(14);
    expect(rows[13]).toMatchObject({ url: 'https://news.example/d/13' });
    expect(JSON.stringify(rows[13])).toContain('Deal 13: a week by the sea');
    expect(JSON.stringify(rows[13])).toContain('Room 13');
  });

  it('reads sections that lay their records out otherwise by role: the heading as title, the link, the text', async () => {
    const slide = (i: number) =>
      `<li class="css-a1"><div class="slide"><a href="/slide/${i}"><div><div><h3>Slide ${i} headline</h3><p>Slide ${i} offer text for readers.</p></div></div></a></div></li>`;
    const product = (i: number) =>
      `<li class="css-b2"><a href="/product/${i}"><span class="name">Product ${i} remedy</span><b>$${i}.50</b></a></li>`;
    const promo = (i: number) =>
      `<li class="css-c3"><a href="/promo/${i}"><picture><img src="/p/${i}.jpg" alt=""></picture><div><h3>Promo ${i} title</h3><p>Promo ${i} conditions apply.</p></div></a></li>`;
    const carousel = (heading: string, cards: string) =>
      `<div><div class="rail-head"><h2>${heading}</h2></div><div><div><ul class="rail">${cards}</ul></div></div></div>`;
    const range = (from: number, to: number, card: (i: number) => string) =>
      Array.from({ length: to - from }, (_, k) => card(from + k)).join('');
    const html = htmlPage(
      `${menu}<main><div class="home">${carousel('Highlights', range(0, 5, slide))}${carousel('Recommended', range(5, 10, product))}${carousel('Offers', range(10, 16, promo))}</div></main>`,
    );
    const { structure, data } = await generate(html);
    const list = arrays(structure)[0]!;
    const rows = rowsOf(data, list.name);
    expect(rows).toHaveLength(16);
    expect(rows[0]).toMatchObject({ title: 'Slide 0 headline', url: 'https://news.example/slide/0' });
    expect(rows[12]).toMatchObject({ title: 'Promo 12 title', url: 'https://news.example/promo/12' });
    // A record without a heading still has its link and every word it shows.
    expect(rows[7]).toMatchObject({ url: 'https://news.example/product/7' });
    expect(JSON.stringify(rows[7])).toContain('Product 7 remedy');
    expect(JSON.stringify(rows[3])).toContain('Slide 3 offer text for readers.');
  });
});
