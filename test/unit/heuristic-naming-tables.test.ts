import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { generateWithHeuristic, htmlPage } from '../support/heuristic-generate.js';

/** Names of tables and their columns a maintainer can read (issue 36 items 2 and 3): no `f1`, no `value2`. */
const generate = (body: string) => generateWithHeuristic(htmlPage(body), 'https://wiki.example/season');
const named = (structure: Field[], name: string) => structure.find((field) => field.name === name);
const fieldNames = (field: Field | undefined) => field?.fields?.map((child) => child.name);

const scoreTable = (home: string, away: string) =>
  `<table class="wikitable"><tr><th></th><th>1</th><th>2</th><th>3</th><th>4</th><th>Total</th></tr>` +
  `<tr><td>${home}</td><td>7</td><td>3</td><td>0</td><td>14</td><td>24</td></tr>` +
  `<tr><td>${away}</td><td>0</td><td>10</td><td>7</td><td>0</td><td>17</td></tr></table>`;

/** A summary titled by a header row across it, with no column headers: quarter, clock, team, play, score. */
const summaryTable = (team: string) =>
  `<table class="summary"><tr><th colspan="5">Scoring summary</th></tr>${[1, 2, 3]
    .map(
      (quarter) =>
        `<tr><td>${quarter}</td><td>1${quarter}:0${quarter}</td><td>${team}</td>` +
        `<td>A long account of play number ${quarter}, a run of several yards and the kick after it</td><td>${team} ${quarter * 7}-0</td></tr>`,
    )
    .join('')}</table>`;

describe('table column names', () => {
  it('names columns headed by small numbers (periods, rounds) by their ordinal word, not f1 … f4', async () => {
    const { structure, data } = await generate(`<h3>Week one</h3>${scoreTable('Lions', 'Bears')}`);
    const table = named(structure, 'weekOnes');
    expect(fieldNames(table)).toEqual(['value', 'first', 'second', 'third', 'fourth', 'total']);
    expect((data.weekOnes as Array<Record<string, unknown>>)[0]).toMatchObject({ value: 'Lions', first: 7, fourth: 14, total: 24 });
  });

  it('names the second column under one header by the header and what it holds', async () => {
    const rows = ['100 m', '200 m', '400 m']
      .map((event, index) => `<tr><td>${event}</td><td>Runner ${index}</td><td>Nation ${index}</td></tr>`)
      .join('');
    const { structure } = await generate(`<h2>Medals</h2><table><tr><th>Event</th><th colspan="2">Gold</th></tr>${rows}</table>`);
    expect(fieldNames(named(structure, 'medals'))).toEqual(['event', 'gold', 'goldValue']);
  });
});

describe('tables titled by a row across them', () => {
  it('takes the title row as the table name, not as every column, and tells such tables apart by their headings', async () => {
    const { structure } = await generate(`<h3>Lions</h3>${summaryTable('LIO')}<h3>Bears</h3>${summaryTable('BEA')}`);
    const tables = structure.filter((field) => field.type === 'array');
    expect(tables.map((table) => table.name)).toEqual(['lionsScoringSummaries', 'bearsScoringSummaries']);
    expect(fieldNames(tables[0])).toEqual(['rank', 'time', 'code', 'description', 'value']);
  });

  it('reads an infobox (a title row, an image row, label cells beside values) as one object named by its title', async () => {
    const infobox =
      `<table class="infobox"><tr><th colspan="2">Ada Example</th></tr>` +
      `<tr><td colspan="2"><img src="/ada.jpg" alt=""></td></tr>` +
      `<tr><th>Born</th><td>10 December 1815</td></tr><tr><th>Occupation</th><td>Mathematician</td></tr>` +
      `<tr><th>Known for</th><td>The first program</td></tr></table>`;
    const { structure, data } = await generate(`${infobox}<p>Ada Example was a mathematician.</p>`);
    expect(structure.filter((field) => field.type === 'array')).toEqual([]);
    expect(fieldNames(named(structure, 'adaExample'))).toEqual(['born', 'occupation', 'knownFor']);
    expect(data.adaExample).toEqual({ born: '10 December 1815', occupation: 'Mathematician', knownFor: 'The first program' });
  });

  it('reads a specification table (a title row over label and value cells) as an object, a repeated label once', async () => {
    const spec =
      `<table><thead><tr><th colspan="2">Technical data</th></tr></thead><tbody>` +
      `<tr><td>Volume</td><td>23 L</td></tr><tr><td>Power</td><td>800 W</td></tr><tr><td>Colour</td><td>White</td></tr></tbody></table>`;
    const record =
      `<table class="infobox"><tr><th colspan="2">Player</th></tr><tr><th colspan="2">Singles</th></tr>` +
      `<tr><th>Open</th><td>Won</td></tr><tr><th>Cup</th><td>Lost</td></tr>` +
      `<tr><th colspan="2">Doubles</th></tr><tr><th>Open</th><td>Final</td></tr></table>`;
    const { structure, data } = await generate(`<h2>Oven</h2><p>An oven.</p>${spec}${record}`);
    expect(structure.filter((field) => field.type === 'array')).toEqual([]);
    expect(data.technicalData).toEqual({ volume: '23 L', power: '800 W', colour: 'White' });
    expect(data.player).toEqual({ open: 'Won', cup: 'Lost' });
  });

  it('offers no table of a cookie consent banner', async () => {
    const cookies = [1, 2, 3].map((n) => `<tr><td>_ga${n}</td><td>Analytics</td><td>${n} years</td></tr>`).join('');
    const banner = `<div id="CookieConsentDialog"><h2>Cookies on this site</h2><table><tr><th>Name</th><th>Purpose</th><th>Expiry</th></tr>${cookies}</table></div>`;
    const { structure } = await generate(`<h3>Week one</h3>${scoreTable('Lions', 'Bears')}${banner}`);
    expect(structure.filter((field) => field.type === 'array').map((field) => field.name)).toEqual(['weekOnes']);
    // A page whose root says the browser keeps cookies (Modernizr's feature classes) still has its tables.
    const featured = htmlPage(`<h3>Week one</h3>${scoreTable('Lions', 'Bears')}`).replace(
      '<html lang="en">',
      '<html lang="en" class="js cookies">',
    );
    const kept = await generateWithHeuristic(featured, 'https://wiki.example/season');
    expect(kept.structure.filter((field) => field.type === 'array').map((field) => field.name)).toEqual(['weekOnes']);
  });
});
