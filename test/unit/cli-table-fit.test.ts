import { afterEach, describe, expect, it } from 'vitest';
import { fitColumns, renderTable } from '../../src/cli/output.js';
import { outputWidth, setTableWidth } from '../../src/cli/table-width.js';

/** Tables of human output fit the terminal: wide columns wrap (long words broken, never cut), then the rightmost go. */
const URL = 'https://shop.example.com/catalogue/category/books/travel_2/index.html?page=1&sort=price-descending';
const head = ['endpoint', 'status', 'source', 'scraper', 'last fetch', 'requests'];
const rows = [
  ['endpoint-with-a-long-name', 'active', URL, '1 (http)', '2026-11-25T10:00:00.000Z', 12],
  ['books', 'inactive', 'https://example.com/', '3 (browser)', null, 0],
];
const widest = (text: string) => Math.max(...text.split('\n').map((line) => [...line].length));

afterEach(() => setTableWidth(undefined));

describe('renderTable within a width', () => {
  it('is unchanged when it fits or no width is set', () => {
    const natural = renderTable(head, rows);
    expect(widest(natural)).toBeGreaterThan(150);
    setTableWidth(400);
    expect(renderTable(head, rows)).toBe(natural);
  });

  it('wraps the widest columns to fit, keeping every character of a long URL', () => {
    setTableWidth(120);
    const table = renderTable(head, rows);
    expect(widest(table)).toBeLessThanOrEqual(120);
    expect(table).not.toContain('…');
    const sourceColumn = table
      .split('\n')
      .map((line) => line.split('│')[3] ?? '')
      .join('')
      .replace(/\s+/g, '');
    expect(sourceColumn).toContain(URL);
    expect(table).not.toContain('left out');
  });

  it('leaves out the rightmost columns when wrapping would make them too narrow, and says how to see them', () => {
    setTableWidth(80);
    const table = renderTable(head, rows);
    expect(widest(table)).toBeLessThanOrEqual(80);
    expect(table.replace(/\s+/g, ' ')).toContain('(columns last fetch, requests left out to fit 80 characters: --wide shows all)');
    expect(table.split('\n')[1]).toContain('endpoint');
  });

  it('fitColumns gives wide columns way first and keeps narrow ones whole', () => {
    expect(fitColumns([10, 8, 100], 60)).toEqual({ widths: [10, 8, 38], shown: 3 });
    expect(fitColumns([10, 8, 100, 30, 30], 60)).toEqual({ widths: [10, 8, 38], shown: 3 });
    expect(fitColumns([10, 8, 100, 30], 70)).toEqual({ widths: [10, 8, 23, 23], shown: 4 });
  });

  it('takes a terminal’s columns, else COLUMNS, else no bound', () => {
    expect(outputWidth({ isTTY: true, columns: 91 } as never, {})).toBe(91);
    expect(outputWidth({ isTTY: false } as never, { COLUMNS: '72' })).toBe(72);
    expect(outputWidth({ isTTY: false } as never, {})).toBeUndefined();
  });
});
