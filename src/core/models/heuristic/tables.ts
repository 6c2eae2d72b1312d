import type { Field } from '../../config/schema.js';
import { attr, elementChildren, selectIn, textOf, type Element } from './dom.js';
import { looksLikeNumber, looksLikePrice, NameSet, camelCase, nameFromText, splitWords, pluralize } from './naming.js';
import { uniqueSelector } from './selectors.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * Data tables as arrays of row objects keyed by their header cells. Layout tables (no header cells, one
 * column, or a single data row) are left to the other detectors.
 */

function rowsOf(table: Element): Element[] {
  // Rows of this table only, not of tables nested in its cells.
  const rows: Element[] = [];
  for (const child of elementChildren(table)) {
    if (child.name === 'tr') rows.push(child);
    else if (['thead', 'tbody', 'tfoot'].includes(child.name)) rows.push(...elementChildren(child).filter((row) => row.name === 'tr'));
  }
  return rows;
}

function cellsOf(row: Element): Element[] {
  return elementChildren(row).filter((cell) => cell.name === 'td' || cell.name === 'th');
}

function isHeaderRow(row: Element): boolean {
  const cells = cellsOf(row);
  return cells.length > 0 && (cells.every((cell) => cell.name === 'th') || row.parent?.type === 'tag' && (row.parent as Element).name === 'thead');
}

function tableName(table: Element): string | null {
  const caption = selectIn('caption', table)[0];
  const words = caption ? splitWords(textOf(caption)).filter((word) => !/^(of|the|by|in|and|a)$/.test(word)) : [];
  return words.length > 0 ? camelCase(words.slice(0, 3)) || null : null;
}

export function detectTables(context: DetectContext): Proposal[] {
  const proposals: Proposal[] = [];
  const topNames = new NameSet();
  const tables = selectIn('table', context.sectionRoots);
  for (const table of tables) {
    const rows = rowsOf(table);
    const headerRows = rows.filter(isHeaderRow);
    const dataRows = rows.filter((row) => !isHeaderRow(row) && cellsOf(row).some((cell) => cell.name === 'td'));
    const header = headerRows[headerRows.length - 1];
    if (!header || dataRows.length < 2) continue;
    const headerCells = cellsOf(header);
    if (headerCells.length < 2 || headerCells.some((cell) => Number(attr(cell, 'colspan') ?? '1') > 1)) continue;
    const width = headerCells.length;
    const regular = dataRows.filter((row) => cellsOf(row).length === width);
    if (regular.length < 2 || regular.length * 2 < dataRows.length) continue;

    const tableSelector = uniqueSelector(table, context.sectionRoots);
    const rowSelector = `${tableSelector} tr:has(> td)`;
    if (selectIn(rowSelector, context.sectionRoots).length !== dataRows.length) continue;

    const names = new NameSet();
    const fields: Field[] = [];
    headerCells.forEach((headerCell, index) => {
      const position = index + 1;
      const sampleCell = cellsOf(regular[0]!)[index]!;
      const cellSelector = `${sampleCell.name}:nth-child(${position})`;
      const values = regular.map((row) => textOf(cellsOf(row)[index]!));
      const filled = values.filter((value) => value.length > 0);
      if (filled.length === 0) return;
      const name = names.take(camelCase(splitWords(textOf(headerCell))) || nameFromText(textOf(headerCell)) || `column${position}`);
      const numeric = filled.every((value) => looksLikeNumber(value) || looksLikePrice(value));
      const field: Field = numeric
        ? { name, type: 'number', selector: cellSelector, transform: ['number'] }
        : { name, type: 'string', selector: cellSelector };
      fields.push(field);
      // A column of links also offers the link target.
      const links = regular.map((row) => selectIn('a[href]', cellsOf(row)[index]!)[0]);
      if (links.filter(Boolean).length * 2 > regular.length)
        fields.push({ name: names.take(`${name}Url`), type: 'url', selector: `${cellSelector} a[href]`, attribute: 'href', transform: ['absoluteUrl'] });
    });
    if (fields.length < 2) continue;
    const caption = tableName(table);
    const name = topNames.take(caption ? pluralize(caption) : tables.length === 1 ? 'rows' : `table${proposals.length + 1}`);
    proposals.push({
      kind: 'table',
      field: { name, type: 'array', selector: rowSelector, fields },
      score: dataRows.length * fields.length,
      hints: `table ${name} ${headerCells.map((cell) => textOf(cell)).join(' ')}`,
      itemElements: dataRows,
    });
  }
  return proposals;
}
