import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/**
 * Issue 36, lists: the main list is the one holding most of the page's content, not the longest. A page's long
 * index of short links (categories, a menu built of plain lists) comes after its records.
 */
const URL_ = 'https://search.example/';
const generate = (html: string) => generateWithHeuristic(html, URL_);
const arrays = (structure: Field[]) => structure.filter((field) => field.type === 'array');
const rowsOf = (data: Record<string, unknown>, name: string) => data[name] as Array<Record<string, unknown>>;

const categories = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `<li class="cat"><a href="/c/${i}">Category ${i}</a> <span class="count">(${i * 3})</span></li>`,
  ).join('');
const results = (count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `<div class="result"><h3><a href="/r/${i}">Result ${i}: the title of a record found</a></h3><p class="snippet">The snippet of result ${i} tells the reader in two or three sentences what the page holds, who wrote it and why it matters. It goes on a little, as snippets of search results do, before it is cut short.</p><span class="when">${i + 1} May 2024</span></div>`,
  ).join('');

describe('the main list', () => {
  it('offers a shorter list of rich records before a long index of short links beside it', async () => {
    const html = htmlPage(
      `<div class="layout"><div class="left"><h2>Browse</h2><ul class="cats">${categories(80)}</ul></div><div class="right"><div class="results">${results(8)}</div></div></div>`,
    );
    const { structure, data } = await generate(html);
    const lists = arrays(structure);
    expect(rowsOf(data, lists[0]!.name)).toHaveLength(8);
    expect(rowsOf(data, lists[0]!.name)[0]).toMatchObject({ title: 'Result 0: the title of a record found' });
    // The index is still offered, after the records.
    expect(lists.map((field) => rowsOf(data, field.name).length)).toContain(80);
  });

  it('keeps a long list of short items first when nothing beside it holds more', async () => {
    const html = htmlPage(
      `<div class="layout"><div class="left"><ul class="cats">${categories(80)}</ul></div><div class="right"><div class="results">${results(3)}</div></div></div>`,
    );
    const { structure, data } = await generate(html);
    expect(rowsOf(data, arrays(structure)[0]!.name)).toHaveLength(80);
  });
});

describe('what is a record', () => {
  it('leaves loading placeholders (skeleton screens) out of a list, however much text they hold', async () => {
    const loaded = Array.from(
      { length: 4 },
      (_, i) =>
        `<div class="tile"><a href="/course/${i}"><img src="/c/${i}.jpg" alt=""></a><div class="details"><span class="name">Course ${i} on algebra</span><span class="price">$${i + 10}.00</span></div></div>`,
    ).join('');
    // Still loading: the same tiles holding grey bars, here with their stand-in words.
    const loading = Array.from(
      { length: 6 },
      () =>
        `<div class="tile"><div class="details"><span><span class="skeleton-line">Loading the course title</span></span><span><span class="skeleton-line">Loading the price</span></span></div></div>`,
    ).join('');
    const { structure, data } = await generate(htmlPage(`<main><h1>Courses</h1><div class="grid">${loaded}${loading}</div></main>`));
    const rows = rowsOf(data, arrays(structure)[0]!.name);
    expect(rows).toHaveLength(4);
    expect(rows[3]).toMatchObject({ url: 'https://search.example/course/3', price: 13 });
    expect(JSON.stringify(rows)).not.toContain('Loading');
  });
});

describe('the name of a list', () => {
  const stories = [
    'Council votes on the new bridge',
    'School opens a second library',
    'Market returns to the square',
    'Bus line 4 runs every ten minutes',
  ]
    .map((title, i) => `<li><a href="/s/${i}">${title}</a><span>What happened, told in a line ${i}</span></li>`)
    .join('');

  it('is never the title of a record before it (a featured story), only a heading of a section header', async () => {
    const featured = `<div class="lead"><article><h3>Storm closes the harbour for a week</h3><p>The harbour master said on Monday that boats must stay in port until the storm passes.</p></article></div>`;
    const { structure } = await generate(htmlPage(`<main>${featured}<div class="wrap"><ul>${stories}</ul></div></main>`));
    expect(arrays(structure)[0]!.name).not.toMatch(/storm|harbour/i);
    // A header block (the heading and a "See all" link) still names the list.
    const header = `<div class="section-head"><h2>Local news</h2><a href="/local">See all</a></div>`;
    const { structure: named } = await generate(htmlPage(`<main>${header}<div class="wrap"><ul>${stories}</ul></div></main>`));
    expect(arrays(named)[0]!.name).toBe('localNews');
  });
});
