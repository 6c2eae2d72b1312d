import { Chalk } from 'chalk';
import Table from 'cli-table3';
import type { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { currentTableWidth } from './table-width.js';

/** Colours only on a terminal and never with NO_COLOR (https://no-color.org). */
export function colors(stream: Writable & { isTTY?: boolean }, env: Record<string, string | undefined>): InstanceType<typeof Chalk> {
  const enabled = Boolean(stream.isTTY) && !('NO_COLOR' in env) && env.TERM !== 'dumb';
  return new Chalk({ level: enabled ? 1 : 0 });
}

/** A column is not wrapped narrower than this (or its own width): rather than that, the rightmost columns are left out. */
const MIN_COLUMN = 20;

/**
 * A plain table for human output; scripts use --json instead. It fits the width set by setTableWidth (table-width.ts): the
 * widest columns wrap first (long words, URLs, are broken, never cut), and when even narrow columns do not
 * fit, the rightmost are left out and a line under the table says so (`--wide` shows every column).
 */
export function renderTable(
  head: string[],
  rows: Array<Array<string | number | null | undefined>>,
  options: { oneLine?: boolean } = {},
): string {
  const cells = rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))));
  const natural = head.map((title, index) => Math.max(displayWidth(title), ...cells.map((row) => displayWidth(row[index] ?? ''))) + 2);
  const tableWidth = currentTableWidth();
  const fit = tableWidth === undefined ? { widths: natural, shown: head.length } : fitColumns(natural, tableWidth);
  if (options.oneLine && tableWidth !== undefined && natural.length > 1 && natural[0]! + 24 < tableWidth) {
    // The first column (the row's name) keeps its width; the others share what is left.
    const rest = fitColumns(natural.slice(1), tableWidth - natural[0]! - 1);
    return oneLineTable(head, cells, { widths: [natural[0]!, ...rest.widths], shown: rest.shown + 1 }, tableWidth);
  }
  if (fit.shown === head.length && fit.widths.every((width, index) => width === natural[index])) {
    const table = new Table({ head, style: { head: [], border: [] } });
    for (const row of cells) table.push(row);
    return table.toString();
  }
  const inner = fit.widths.map((width) => width - 2);
  const table = new Table({
    head: head.slice(0, fit.shown).map((title, index) => breakLongWords(title, inner[index]!)),
    colWidths: fit.widths,
    wordWrap: true,
    style: { head: [], border: [] },
  });
  for (const row of cells) table.push(row.slice(0, fit.shown).map((cell, index) => breakLongWords(cell, inner[index]!)));
  return `${table.toString()}${leftOutNote(head, fit.shown, tableWidth!)}`;
}

/**
 * A table of one line per row (a list of many endpoints fits a terminal's height too): no rule between rows, and
 * every cell after the first cut with `…` to its column instead of wrapped (`--wide` or `--json` show it whole).
 */
function oneLineTable(head: string[], cells: string[][], fit: { widths: number[]; shown: number }, tableWidth: number): string {
  const inner = fit.widths.map((width) => width - 2);
  const cut = (cell: string, index: number) => {
    const line = cell.split('\n').join('; ');
    const plain = [...stripVTControlCharacters(line)];
    if (index === 0 || plain.length <= inner[index]!) return line;
    return `${plain.slice(0, Math.max(1, inner[index]! - 1)).join('')}…`;
  };
  const table = new Table({
    head: head.slice(0, fit.shown).map((title, index) => breakLongWords(title, inner[index]!)),
    colWidths: fit.widths,
    wordWrap: true,
    style: { head: [], border: [], compact: true },
  });
  for (const row of cells) table.push(row.slice(0, fit.shown).map((cell, index) => breakLongWords(cut(cell, index), inner[index]!)));
  return `${table.toString()}${leftOutNote(head, fit.shown, tableWidth)}`;
}

/** The line under a table that says which columns were left out to fit. */
function leftOutNote(head: string[], shown: number, tableWidth: number): string {
  const hidden = head.slice(shown);
  if (hidden.length === 0) return '';
  return `\n${wrapWords(`(${hidden.length === 1 ? 'column' : 'columns'} ${hidden.join(', ')} left out to fit ${tableWidth} characters: --wide shows all)`, tableWidth)}`;
}

/** Widths (padding included) that fit `width` with the table's borders, and how many columns from the left fit. */
export function fitColumns(natural: readonly number[], width: number): { widths: number[]; shown: number } {
  for (let shown = natural.length; shown >= 1; shown -= 1) {
    const columns = natural.slice(0, shown);
    const room = width - (shown + 1);
    const floor = columns.map((natural) => Math.min(natural, MIN_COLUMN));
    if (floor.reduce((sum, w) => sum + w, 0) > room && shown > 1) continue;
    // The largest cap at which the capped columns fit: wide columns give way first, narrow ones keep their width.
    let low = 1;
    let high = Math.max(...columns);
    while (low < high) {
      const cap = Math.ceil((low + high) / 2);
      const total = columns.reduce((sum, w, index) => sum + Math.max(floor[index]!, Math.min(w, cap)), 0);
      if (total <= room) low = cap;
      else high = cap - 1;
    }
    return { widths: columns.map((w, index) => Math.max(floor[index]!, Math.min(w, low))), shown };
  }
  return { widths: [Math.max(3, width - 2)], shown: 1 };
}

/** Plain text on lines of at most `width` characters, broken between words. */
function wrapWords(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

function displayWidth(text: string): number {
  return Math.max(
    ...stripVTControlCharacters(text)
      .split('\n')
      .map((line) => [...line].length),
  );
}

/** A word longer than the column (a URL, an id) is broken onto lines of its own, so wrapping never cuts it with `…`. */
function breakLongWords(text: string, width: number): string {
  if (width < 1) return text;
  return text
    .split('\n')
    .map((line) =>
      line
        .split(' ')
        .map((word) => {
          const plain = stripVTControlCharacters(word);
          if ([...plain].length <= width) return word;
          const chars = [...plain];
          const parts: string[] = [];
          for (let at = 0; at < chars.length; at += width) parts.push(chars.slice(at, at + width).join(''));
          return parts.join('\n');
        })
        .join(' '),
    )
    .join('\n');
}
