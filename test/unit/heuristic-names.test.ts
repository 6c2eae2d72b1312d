import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/** Names and selectors a maintainer can read (issue 36 items 2 and 4), each rule on a page written for it. */
const URL_ = 'https://news.example/';
const generate = (body: string) => generateWithHeuristic(htmlPage(body), URL_);
const arrays = (structure: Field[]) => structure.filter((field) => field.type === 'array');
const POSITIONAL = /nth-(of-type|child|last)|:first-|:last-/;

describe('names', () => {
  it('never names a list or a field after class shorthand that means nothing to a reader', async () => {
    const cards = ['Alpha', 'Beta', 'Gamma', 'Delta']
      .map(
        (title, index) =>
          `<div class="mfes"><a class="rzds" href="/p/${index}">${title} phone</a><span class="ekabf">Great ${title} deal today</span></div>`,
      )
      .join('');
    const { structure } = await generate(`<h2>Latest phones</h2><div class="gtkis">${cards}</div>`);
    const list = arrays(structure)[0]!;
    expect(list.name).toBe('latestPhones');
    expect(list.fields!.map((field) => field.name)).toEqual(['title', 'url', 'text']);
  });

  it('names a second price that is struck out oldPrice, and a second text by its length, before any number', async () => {
    const cards = [1, 2, 3, 4]
      .map(
        (n) =>
          `<li class="product"><h3>Lamp ${n}</h3><span class="badge">New ${n}</span><p class="blurb">A lamp for reading late, model ${n}, with a warm light and a heavy base.</p><span class="price">€${n}0.00</span><del class="old">€${n}9.00</del></li>`,
      )
      .join('');
    const { structure } = await generate(`<ul class="products">${cards}</ul>`);
    const names = arrays(structure)[0]!.fields!.map((field) => field.name);
    expect(names).toEqual(expect.arrayContaining(['title', 'price', 'oldPrice']));
    expect(names.filter((name) => /\d$/.test(name))).toEqual([]);
  });

  it('tells two lists alike apart by the headings before them', async () => {
    const list = (word: string) =>
      `<ul class="items">${[1, 2, 3].map((n) => `<li class="item"><a href="/${word}/${n}">${word} story ${n}</a><span class="meta">by Ann ${n} on Monday</span></li>`).join('')}</ul>`;
    const { structure } = await generate(
      `<section><h2>Sport</h2>${list('sport')}</section><div class="box"><div><h2>Weather</h2>${list('weather')}</div></div>`,
    );
    const names = arrays(structure).map((field) => field.name);
    expect(names).toHaveLength(2);
    expect(names.filter((name) => /\d$/.test(name))).toEqual([]);
  });
});

describe('names: layout and screen-reader text', () => {
  it('never names fields after screen-reader copies (visuallyHidden) or lists after carousel widgets', async () => {
    const slides = ['Oslo', 'Rome', 'Lima', 'Kyiv']
      .map(
        (city, n) =>
          `<div class="slick-slide"><a class="scroll-align" href="/c/${n}">${city} city break</a><span class="visuallyHidden">Opens in a new window</span><span class="mojo-price">€${n}99</span></div>`,
      )
      .join('');
    const { structure, data } = await generate(`<h2>City breaks</h2><div class="slick-track">${slides}</div>`);
    const list = arrays(structure)[0]!;
    expect(list.name).toBe('cityBreaks');
    expect(list.fields!.map((field) => field.name)).toEqual(['title', 'url', 'price']);
    expect((data[list.name] as Array<Record<string, unknown>>)[1]).toEqual({
      title: 'Rome city break',
      url: 'https://news.example/c/1',
      price: 199,
    });
  });
});

describe('list items carry their records', () => {
  it("offers the record's whole text when its fields leave much of what a reader sees out", async () => {
    const places = ['Leeds, early shifts, training given', 'York, late shifts, own van', 'Hull, nights, ward B', 'Bath, days, site work'];
    const jobs = ['Baker', 'Driver', 'Nurse', 'Welder']
      .map(
        (role, n) =>
          `<div class="job"><a href="/jobs/${n}">${role} wanted</a><br>Full time in ${places[n]}<span class="badge">Remote</span></div>`,
      )
      .join('');
    const { structure, data } = await generate(`<div class="jobs">${jobs}</div>`);
    const list = arrays(structure)[0]!;
    expect(list.fields!.map((field) => field.name)).toContain('text');
    const first = (data[list.name] as Array<Record<string, unknown>>)[0]!;
    expect(Object.values(first).join(' ')).toContain('Leeds, early shifts, training given');
  });

  it('offers no such text when the fields already hold the record', async () => {
    const cards = ['Alpha', 'Beta', 'Gamma']
      .map((title, n) => `<div class="card"><h3>${title}</h3><p class="about">About ${title} number ${n}</p></div>`)
      .join('');
    const { structure } = await generate(`<div class="cards">${cards}</div>`);
    expect(arrays(structure)[0]!.fields!.map((field) => field.name)).not.toContain('text');
  });
});

describe('selectors', () => {
  it('anchors a list without a class on the heading before it, and a table on its header cells, not on their positions', async () => {
    const links = [1, 2, 3, 4]
      .map((n) => `<li><a href="https://ext.example/${n}">External site number ${n}</a> — a long description of site ${n}</li>`)
      .join('');
    const table = (first: string) =>
      `<table class="wikitable"><tr><th>${first}</th><th>Year</th></tr>${[1, 2, 3].map((n) => `<tr><td>${first} ${n}</td><td>${1990 + n}</td></tr>`).join('')}</table>`;
    const body = `<p>x</p><ul><li>a</li></ul><h2><span id="Albums">Albums</span></h2>${table('Album')}<p>y</p>${table('Single')}<h2><span id="External_links">External links</span></h2><ul>${links}</ul>`;
    const { structure, data } = await generate(body);
    for (const field of arrays(structure)) expect(field.selector).not.toMatch(POSITIONAL);
    expect(arrays(structure).map((field) => (data[field.name] as unknown[]).length)).toEqual(expect.arrayContaining([3, 3, 4]));
  });
});
