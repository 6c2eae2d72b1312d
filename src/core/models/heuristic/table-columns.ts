import { elementChildren, isCleanNumber, selectIn, textOf, type Element } from '../../extract/index.js';
import { camelCase, looksLikeDate, nameFromContent, nameFromText, nameFromValues, splitWords } from './naming.js';

/**
 * Names of a table's columns, as a reader would call them: from the header cells over the column, else from
 * what the column holds. A name ending in a number (`f1`, `value2`) is what a maintainer cannot read, so
 * headers that are positions become ordinal words and unheaded columns are named by their content.
 */

export interface Cell {
  element: Element;
  column: number;
  width: number;
}

/** Column headers that are a small whole number are positions (periods of a game, rounds, heats). */
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth'];

/** The name a header's text gives its column, or '' when it gives none. */
export function nameFromHeader(header: string): string {
  const trimmed = header.trim();
  // `1 2 3 4 Total` over the scores of each period: `first` … `fourth`, not `f1` … `f4`.
  if (/^\d{1,2}$/.test(trimmed) && Number(trimmed) >= 1 && Number(trimmed) <= ORDINALS.length) return ORDINALS[Number(trimmed) - 1]!;
  return camelCase(splitWords(header)) || nameFromText(header) || '';
}

/** Column names from the header rows: the texts of the cells over each column, outer first, repeats dropped. */
export function columnNames(headerRows: Cell[][], columns: number): string[] {
  return Array.from({ length: columns }, (_, column) => {
    const parts: string[] = [];
    for (const row of headerRows) {
      const over = row.find((cell) => cell.column <= column && column < cell.column + cell.width);
      const text = over ? textOf(over.element) : '';
      if (text && parts[parts.length - 1] !== text) parts.push(text);
    }
    return parts.join(' ');
  });
}

/** The column lies under the same header cell as the one before it (`Gold` spanning a name and a time). */
export function sharesHeaderCell(headerRows: Cell[][], column: number): boolean {
  for (let index = headerRows.length - 1; index >= 0; index--) {
    const over = headerRows[index]!.find((cell) => cell.column <= column && column < cell.column + cell.width);
    if (over) return over.column < column && textOf(over.element) !== '';
  }
  return false;
}

/** The name of a column without a header, from its cells: ranks, images, links, dates, prices, else `value`. */
export function nameFromColumn(cells: Element[], filled: string[]): string {
  const numbers = filled.map((value) => (isCleanNumber(value) ? Number(value.replace(/[^\d.-]/g, '')) : NaN));
  if (numbers.length >= 2 && numbers.every((value, index) => value === index + 1)) return 'rank';
  if (filled.length === 0 || cells.every((cell) => textOf(cell) === '' || selectIn('img', cell).length > 0)) return 'image';
  const content = nameFromContent(filled[0] ?? '');
  if (content && filled.every((value) => nameFromContent(value) === content)) return content;
  if (filled.every((value) => isCleanNumber(value))) return 'number';
  if (filled.every(looksLikeDate)) return 'date';
  const byValues = nameFromValues(filled);
  if (byValues) return byValues;
  if (cells.every((cell) => selectIn('a[href]', cell).length > 0)) return 'link';
  // Sentences (a play's account, a note) rather than values.
  return filled.reduce((sum, value) => sum + value.length, 0) / filled.length > 40 ? 'description' : 'value';
}

/**
 * Rows of two plain cells under a title ("Technical data": `Volume | 23 L`, `Colour | White`): every label
 * different and none a number, so the first column names what the second holds.
 */
export function isSpecification(rows: Element[]): boolean {
  const cells = rows.map((row) => elementChildren(row).filter((cell) => cell.name === 'th' || cell.name === 'td'));
  const labels = cells.filter((row) => row.length > 1).map((row) => (row.length === 2 && row[0]!.name === 'td' ? textOf(row[0]!) : ''));
  return (
    labels.length >= 2 &&
    labels.every((label) => label.length > 0 && label.length <= 40 && !/["\\]/.test(label) && !/^[\d\s.,%-]+$/.test(label)) &&
    new Set(labels).size === labels.length
  );
}
