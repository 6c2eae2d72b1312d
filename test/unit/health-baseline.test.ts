import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { applyEdits } from '../../src/core/edit/operations.js';
import {
  carryBaseline,
  headersFrom,
  headerStructure,
  judgeConfig,
  judgeHealth,
  learnBaseline,
  seedBaseline,
  valueKind,
} from '../../src/core/health/index.js';
import type { ApiConfig } from '../../src/core/config/schema.js';

/**
 * The health baseline (issue 33 items 2 and 3): what good data looks like per field, learned from healthy
 * observations, following a field through renames, moves and retypes, and the findings it makes possible.
 */
const planets: Field[] = [
  { name: 'title', type: 'string', selector: 'h1' },
  {
    name: 'rows',
    type: 'array',
    selector: 'table.planets tr:has(td)',
    fields: [
      { name: 'name', type: 'string', selector: 'td:nth-child(1)' },
      { name: 'moons', type: 'string', selector: 'td:nth-child(2)' },
      { name: 'link', type: 'url', selector: 'a', attribute: 'href' },
    ],
  },
];
const good = {
  title: 'Planets',
  rows: [
    { name: 'Jupiter', moons: '95', link: 'https://x.example/jupiter' },
    { name: 'Saturn', moons: '146', link: 'https://x.example/saturn' },
    { name: 'Uranus', moons: '28', link: 'https://x.example/uranus' },
  ],
};

describe('value kinds', () => {
  it('reads numbers, prices, URLs, dates, identifiers, labels and text', () => {
    expect(['95', '1,234.5', 12].map(valueKind)).toEqual(['number', 'number', 'number']);
    expect(['$12.99', '12,99 €', 'USD 5'].map(valueKind)).toEqual(['price', 'price', 'price']);
    expect(['https://x.example/a', '/books/1'].map(valueKind)).toEqual(['url', 'url']);
    expect(['2026-11-25', 'Nov 25, 2026', '25.11.2026'].map(valueKind)).toEqual(['date', 'date', 'date']);
    expect(['SKY10', 'Call for price', 'A long sentence that goes on and on about the product and more'].map(valueKind)).toEqual([
      'identifier',
      'label',
      'text',
    ]);
    expect(valueKind(null)).toBeUndefined();
  });
});

describe('the baseline', () => {
  it('learns per field how often it is filled, its item counts and its kinds', () => {
    const baseline = learnBaseline(learnBaseline(undefined, planets, good), planets, { ...good, rows: good.rows.slice(0, 2) });
    const byPath = new Map(baseline.fields.map((entry) => [entry.path, entry]));
    expect(byPath.get('rows')).toMatchObject({ seen: 2, filled: 2, counts: [3, 2] });
    expect(byPath.get('rows.moons')).toMatchObject({ seen: 2, filled: 2, kinds: { number: 2 } });
    expect(byPath.get('rows.link')).toMatchObject({ kinds: { url: 2 }, attribute: 'href', selector: 'a' });
  });

  it('says numbers became text when another table is read, naming the column and a value', () => {
    const baseline = seedBaseline(planets, [good, good]);
    const shifted = { title: 'Planets', rows: [{ name: 'Promo', moons: 'SKY10', link: 'https://x.example/p' }] };
    const health = judgeHealth(planets, shifted, baseline);
    expect(health.state).toBe('degraded');
    expect(health.findings).toContain('rows[].moons: numbers became text such as "SKY10"');
    // And a URL that is not one, a price that became words.
    const links = judgeHealth(planets, { ...good, rows: good.rows.map((row) => ({ ...row, link: 'read more' })) }, baseline);
    expect(links.findings).toEqual(['rows[].link: URLs became words such as "read more"']);
  });

  it("says when a list's labels change shape (a hidden sort key read with the name), not when other names come", () => {
    const people: Field[] = [{ name: 'people', type: 'array', selector: 'tr', fields: [{ name: 'name', type: 'string', selector: 'td' }] }];
    const names = ['Edmund Barton', 'Alfred Deakin', 'Chris Watson', 'George Reid'];
    const baseline = seedBaseline(people, [{ people: names.map((name) => ({ name })) }]);
    const leaked = { people: names.map((name) => ({ name: `${name.split(' ').reverse().join(', ')}${name}` })) };
    expect(judgeHealth(people, leaked, baseline).findings).toEqual([
      'people[].name: labels became longer, such as "Barton, EdmundEdmund Barton" (were about 13 characters)',
    ]);
    const others = { people: ['Andrew Fisher', 'Joseph Cook', 'Billy Hughes', 'Stanley Bruce'].map((name) => ({ name })) };
    expect(judgeHealth(people, others, baseline).state).toBe('healthy');
  });

  it("does not judge a dynamic endpoint's lists by count: a search's results are as many as its query finds", () => {
    const search = {
      url: 'https://x.example/search?q={{q}}',
      variables: { q: { example: 'light' } },
      structure: planets,
    } as unknown as ApiConfig;
    const baseline = seedBaseline(planets, [good]);
    for (const rows of [[], good.rows.slice(0, 1)]) expect(judgeConfig(search, { ...good, rows }, baseline).state).toBe('healthy');
    // Its items still are: numbers that became text are a finding whatever the query.
    expect(
      judgeConfig(search, { ...good, rows: [{ name: 'Promo', moons: 'SKY10', link: 'https://x.example/p' }] }, baseline).findings,
    ).toEqual(['rows[].moons: numbers became text such as "SKY10"']);
    const fixed = { url: 'https://x.example/planets', variables: {}, structure: planets } as unknown as ApiConfig;
    expect(judgeConfig(fixed, { ...good, rows: [] }, baseline).state).toBe('degraded');
  });

  it('says when a table column is read under another header, from the header structure of its list', () => {
    const found = headerStructure(planets)!;
    expect(found.structure.map((field) => field.selector)).toEqual([
      'table.planets tr:has(> th) > :nth-child(1)',
      'table.planets tr:has(> th) > :nth-child(2)',
    ]);
    const headers = headersFrom(found, { h0: 'Planet', h1: ' Moons ' });
    expect(headers).toEqual({ 'rows.name': 'Planet', 'rows.moons': 'Moons' });
    const baseline = learnBaseline(undefined, planets, good, headers);
    const swapped = { ...good, rows: good.rows.map((row) => ({ ...row, moons: String(Number(row.moons) + 1) })) };
    expect(judgeHealth(planets, swapped, baseline, { headers: { 'rows.name': 'Planet', 'rows.moons': 'Rings' } }).findings).toEqual([
      'rows[].moons: read under the header "Rings" (was "Moons")',
    ]);
    expect(judgeHealth(planets, swapped, baseline, { headers }).state).toBe('healthy');
    expect(
      headerStructure([
        { name: 'items', type: 'array', selector: 'ul > li', fields: [{ name: 'a', type: 'string', selector: 'td:nth-child(1)' }] },
      ]),
    ).toBeUndefined();
  });

  it('does not flag a list that varies in length, nor values that stay of their kind', () => {
    const varying = [good, { ...good, rows: good.rows.slice(0, 2) }, { ...good, rows: [...good.rows, ...good.rows] }];
    const baseline = seedBaseline(planets, varying);
    for (const data of [...varying, { ...good, rows: good.rows.slice(0, 1) }])
      expect(judgeHealth(planets, data, baseline).state).toBe('healthy');
  });

  it('follows a field renamed, moved or retyped by edit (it belongs to the field, not its name)', () => {
    const config = { apiId: 'p', revision: 1, structure: planets } as unknown as ApiConfig;
    const baseline = seedBaseline(planets, [good]);
    const { config: edited } = applyEdits(config, [
      { kind: 'rename', path: 'rows', name: 'planets' },
      { kind: 'rename', path: 'planets.moons', name: 'satellites' },
      { kind: 'move', path: 'title', position: 2 },
    ]);
    const carried = carryBaseline(baseline, edited.structure)!;
    expect(carried.fields.map((entry) => entry.path)).toEqual(['planets', 'planets.name', 'planets.satellites', 'planets.link', 'title']);
    // The renamed list emptied after a redesign is named by its new name.
    const emptied = judgeHealth(edited.structure, { planets: [], title: 'Planets' }, baseline);
    expect(emptied.findings).toEqual(['planets: empty (had at least 3 items in every good observation)']);
    // Retyped: the kinds go (its values are read anew), the fill stays.
    const { config: retyped } = applyEdits(config, [{ kind: 'set', key: 'rows.moons.type', value: 'number' }]);
    const moons = carryBaseline(baseline, retyped.structure)!.fields.find((entry) => entry.path === 'rows.moons')!;
    expect(moons.kinds).toBeUndefined();
    expect(moons).toMatchObject({ type: 'number', seen: 1, filled: 1 });
  });

  it('keeps a field its baseline when its selector is edited (and a broken edit is then a finding)', () => {
    const baseline = seedBaseline(planets, [good, good, good]);
    const { config: edited } = applyEdits({ apiId: 'p', revision: 1, structure: planets } as unknown as ApiConfig, [
      { kind: 'set', key: 'title.selector', value: 'h1.gone' },
    ]);
    expect(judgeHealth(edited.structure, { ...good, title: null }, baseline).findings).toEqual([
      'title: empty in 1 of 1 (was filled in 3 of 3)',
    ]);
  });

  it('gives a new field no baseline: it is judged only on being filled when required', () => {
    const added: Field[] = [...planets, { name: 'note', type: 'string', selector: '.note' }];
    const baseline = seedBaseline(planets, [good]);
    expect(carryBaseline(baseline, added)!.fields.some((entry) => entry.path === 'note')).toBe(false);
    expect(judgeHealth(added, { ...good, note: null }, baseline).state).toBe('healthy');
  });

  it('reads a stored baseline as hostile: odd shapes and numbers are ignored, not trusted', () => {
    const hostile = { version: 1, fields: [{ path: '__proto__', type: 'string', seen: 'x', filled: Infinity }, null] } as never;
    expect(judgeHealth(planets, good, hostile).state).toBe('healthy');
  });
});
