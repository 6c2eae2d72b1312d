import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/** Tables (issue 36 item 3), each rule on a page written for it. */
const URL_ = 'https://wiki.example/article';
const generate = (body: string) => generateWithHeuristic(htmlPage(body), URL_);
const arrays = (structure: Field[]) => structure.filter((field) => field.type === 'array');

function filmsTable(rows: number, notesEvery: number): string {
  const body = Array.from(
    { length: rows },
    (_, index) =>
      `<tr><td>${2000 + index}</td><td>Film ${index}</td><td>Role ${index}</td><td>${index % notesEvery === 0 ? `Note ${index}` : ''}</td></tr>`,
  ).join('');
  return `<h2>Filmography</h2><table class="wikitable"><tr><th>Year</th><th>Title</th><th>Role</th><th>Notes</th></tr>${body}</table>`;
}

describe('tables', () => {
  it('describes at most 40 tables on a page of many, the ones with the most rows', async () => {
    // 45 small tables of 3 rows, and one of 12 rows last: the long one is among those kept.
    const small = (index: number) =>
      `<table><tr><th>Name</th><th>Score</th></tr><tr><td>a${index}</td><td>${index}</td></tr><tr><td>b${index}</td><td>${index + 1}</td></tr><tr><td>c${index}</td><td>${index + 2}</td></tr></table>`;
    const long = `<table><tr><th>Player</th><th>Goals</th></tr>${Array.from({ length: 12 }, (_, i) => `<tr><td>P${i}</td><td>${i}</td></tr>`).join('')}</table>`;
    const { structure, data } = await generate(`${Array.from({ length: 45 }, (_, index) => small(index)).join('')}${long}`);
    const tables = arrays(structure);
    expect(tables).toHaveLength(40);
    const lengths = tables.map((table) => (data[table.name] as unknown[]).length);
    expect(lengths.filter((length) => length === 12)).toHaveLength(1);
    expect(lengths.filter((length) => length === 3)).toHaveLength(39);
  });

  it('keeps every column under a header, a sparse Notes column too', async () => {
    const { structure, data } = await generate(filmsTable(40, 10));
    const table = arrays(structure)[0]!;
    expect(table.name).toBe('filmographies');
    expect(table.fields!.map((field) => field.name)).toEqual(['year', 'title', 'role', 'notes']);
    const rows = data[table.name] as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(40);
    expect(rows.filter((row) => row.notes !== null).map((row) => row.notes)).toEqual(['Note 0', 'Note 10', 'Note 20', 'Note 30']);
  });

  it('offers no table hidden from readers, no navigation box and no grid of letters under empty headers', async () => {
    const hidden = `<table class="persondata" style="display:none"><tr><th colspan="2">Persondata</th></tr><tr><td>Name</td><td>X</td></tr><tr><td>Born</td><td>1900</td></tr><tr><td>Died</td><td>1990</td></tr></table>`;
    const navbox = `<table class="navbox"><tr><th>Group</th><th>Links</th></tr><tr><td>A</td><td><a href="/a">a</a></td></tr><tr><td>B</td><td><a href="/b">b</a></td></tr><tr><td>C</td><td><a href="/c">c</a></td></tr></table>`;
    const letters = ['Ђ', 'Ѓ', 'Е', 'Ѐ', 'Ё', 'Є'];
    const grid = `<table><tr><th></th><th></th><th></th></tr>${[0, 3]
      .map(
        (start) =>
          `<tr>${letters
            .slice(start, start + 3)
            .map((letter) => `<td><a href="/wiki/${start}">${letter}</a></td>`)
            .join('')}</tr>`,
      )
      .join('')}<tr><td><a href="/x">Ѕ</a></td><td><a href="/y">І</a></td><td><a href="/z">Ї</a></td></tr></table>`;
    // The same letters in a layout table (no header cells): rows of one-letter links, not records.
    const layout = grid.replace(/<tr><th><\/th><th><\/th><th><\/th><\/tr>/, '');
    const { structure } = await generate(`${filmsTable(5, 1)}${hidden}${navbox}${grid}<div>${layout}</div>`);
    expect(arrays(structure).map((field) => field.name)).toEqual(['filmographies']);
  });

  it('names a column without a header by what it holds, and a table without a title by what its rows are', async () => {
    const rows = ['Ann', 'Bob', 'Cy', 'Di']
      .map(
        (name, index) => `<tr><td>${index + 1}</td><td><img src="/f${index}.png" alt=""></td><td>${name}</td><td>${10 - index}</td></tr>`,
      )
      .join('');
    const table = `<table><tr><th></th><th></th><th>Player</th><th>Points</th></tr>${rows}</table>`;
    const { structure } = await generate(`<p>intro</p>${table}<p>between</p>${filmsTable(3, 1)}`);
    const players = arrays(structure).find((field) => field.fields?.some((child) => child.name === 'player'))!;
    expect(players.name).toBe('players');
    expect(players.fields!.map((field) => field.name)).toEqual(['rank', 'player', 'points']);
  });

  it('tells two tables under one heading apart by their rows, not by a number', async () => {
    const table = (first: string, label: string) =>
      `<table><tr><th>${first}</th><th>Year</th></tr>${[1, 2, 3].map((n) => `<tr><td>${label} ${n}</td><td>${1990 + n}</td></tr>`).join('')}</table>`;
    const { structure } = await generate(`<h2>Discography</h2>${table('Album', 'Album')}${table('Single', 'Single')}`);
    expect(arrays(structure).map((field) => field.name)).toEqual(['discographies', 'discographiesSingle']);
  });

  it('keeps text a page really shows that only looks like a template mark', async () => {
    const rows = [1, 2, 3].map((n) => `<tr><td>GL-${n}</td><td>[[]]</td><td>${n}-0</td></tr>`).join('');
    const { structure, data } = await generate(`<h3>Cup</h3><table><tr><th>Match</th><th>Venue</th><th>Score</th></tr>${rows}</table>`);
    const table = arrays(structure)[0]!;
    expect((data[table.name] as Array<Record<string, unknown>>)[0]).toEqual({ match: 'GL-1', venue: '[[]]', score: '1-0' });
  });
});
