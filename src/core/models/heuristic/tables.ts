import type { Field } from '../../config/index.js';
import {
  attr,
  elementChildren,
  firstDescendant,
  isCleanNumber,
  isUnreadElement,
  parentElement,
  selectIn,
  textOf,
  uniqueSelector,
  type Element,
} from '../../extract/index.js';
import { looksLikeDate, looksLikePrice, NameSet, pluralize, splitWords } from './naming.js';
import { takeTableName, tableTitle, type TableTitle } from './table-titles.js';
import { columnNames, isSpecification, nameFromColumn, nameFromHeader, sharesHeaderCell, type Cell } from './table-columns.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * Data tables as arrays of row objects keyed by their header cells. A table is read as a grid, as a reader
 * sees it: header cells spanning columns (`colspan`) name every column under them, two header rows combine
 * ("Chart positions US"), cells spanning rows were copied into each row by the parser (structure/reading.ts),
 * header cells at the start of body rows (`<th>1</th><td>…`) are data, rows of one cell across the table are
 * section titles, not records, and a table without header cells may use its first row as the header.
 * Every significant table is offered, named from its caption or the heading before it.
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

function span(cell: Element): number {
  const value = Number.parseInt(attr(cell, 'colspan') ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, 100) : 1;
}

/** The row's cells with their grid columns (row spans are already copied in by the parser). */
function gridRow(row: Element): Cell[] {
  let column = 0;
  return cellsOf(row).map((element) => {
    const cell = { element, column, width: span(element) };
    column += cell.width;
    return cell;
  });
}

const width = (cells: Cell[]): number => cells.reduce((sum, cell) => sum + cell.width, 0);

function isHeaderRow(row: Element, cells: Cell[]): boolean {
  if (cells.length === 0) return false;
  const inThead = parentElement(row)?.name === 'thead';
  return inThead || cells.every((cell) => cell.element.name === 'th');
}

/** A first row of plain cells that reads as a header: short labels, no numbers, no two alike. */
function looksLikeHeader(cells: Cell[]): boolean {
  const texts = cells.map((cell) => textOf(cell.element));
  return (
    texts.length >= 2 &&
    texts.every((text) => text.length > 0 && text.length <= 40 && !/\d{3,}/.test(text) && !isCleanNumber(text) && !looksLikeDate(text)) &&
    // Labels may repeat under a grouping the page draws otherwise ("midi" twice), but mostly they differ.
    new Set(texts).size * 4 >= texts.length * 3
  );
}

export function detectTables(context: DetectContext): Proposal[] {
  const proposals: Proposal[] = [];
  const topNames = new NameSet();
  // Tables hidden from readers (Wikipedia's persondata) and navigation boxes are not the page's data.
  const tables = largestTables(selectIn('table', context.sectionRoots).filter((table) => !isHiddenOrNavigation(table)));
  const described = tables.map((table) => describeTable(table, context, tables.length)).filter((found) => found !== null);
  // A title several tables share (a scoring summary per game) is told apart by each one's heading, the first too.
  const shared = new Set(described.map(({ proposal }) => proposal.field.name).filter((name, index, all) => all.indexOf(name) !== index));
  for (const { proposal, title } of described) {
    proposal.field = { ...proposal.field, name: takeTableName(topNames, proposal, title, shared.has(proposal.field.name)) };
    proposals.push(proposal);
  }
  return proposals;
}

/**
 * At most this many tables are described, the ones with the most rows, in page order: each described table is
 * a selector checked against the page and an extraction to verify it, and a page of thousands of small tables
 * (a statistics archive) took minutes. Forty is more than the data tables of any article.
 */
const MAX_TABLES = 40;

function largestTables(tables: Element[]): Element[] {
  if (tables.length <= MAX_TABLES) return tables;
  const kept = new Set(
    tables
      .map((table, index) => ({ table, index, rows: rowsOf(table).length }))
      .sort((a, b) => b.rows - a.rows || a.index - b.index)
      .slice(0, MAX_TABLES)
      .map(({ table }) => table),
  );
  return tables.filter((table) => kept.has(table));
}

/** Every cell a link of a character or two, or an image alone (an alphabet, flags): a grid of icons, not records. */
function isIconGrid(rows: Element[]): boolean {
  // One pass that stops at the first cell of real text: a data table of thousands of rows answers at once.
  let icons = 0;
  for (const row of rows)
    for (const cell of cellsOf(row)) {
      const text = textOf(cell);
      const image = (text === '' || text.length <= 2) && firstDescendant(cell, isImage) !== null;
      if (text === '' && !image) continue;
      if (text.length > 2 || !(image || firstDescendant(cell, isLink) !== null)) return false;
      icons += 1;
    }
  return icons > 0;
}

const isImage = (element: Element) => element.name === 'img';
const isLink = (element: Element) => element.name === 'a' && element.attribs.href !== undefined;

const NAVIGATION_CLASS = /(^|[-_\s])(navbox|navbar|vertical-navbox|sidebar|nav|menu|footer|metadata|persondata)([-_\s]|$)/i;

export function isHiddenOrNavigation(table: Element): boolean {
  for (let current: Element | null = table; current; current = parentElement(current)) {
    if (isUnreadElement(current) || ['nav', 'footer', 'aside'].includes(current.name) || current.attribs.role === 'navigation') return true;
    const called = `${current.attribs.class ?? ''} ${current.attribs.id ?? ''}`;
    // `<html class="js cookies …">` says what the browser supports (Modernizr), not that the page is a banner.
    if (NAVIGATION_CLASS.test(called) || (!['html', 'body'].includes(current.name) && isConsentBanner(called))) return true;
  }
  return false;
}

/** A cookie or consent banner (`CookieConsentDialog`, `cookiebar`, `gdpr-modal`) lists the site's cookies, not the page's data. */
function isConsentBanner(called: string): boolean {
  return splitWords(called).some((word) => word.startsWith('cookie') || word === 'consent' || word === 'gdpr');
}

interface Header {
  /** Rows at the top that are header rows (title rows included). */
  headerCount: number;
  /** The header rows that name columns. */
  headerRows: Cell[][];
  /** Rows at the top of one header cell across the table: its title. */
  titleCount: number;
  columns: number;
  /** The header is a first row of plain cells. */
  plainHeader: boolean;
}

const isLabelRow = (row: Element): boolean => {
  const cells = cellsOf(row);
  return cells.length === 2 && cells[0]!.name === 'th' && cells[1]!.name === 'td';
};

/** The table's header rows, its title rows and its width in columns; null when it has no header to read. */
function readHeader(rows: Element[], grid: Cell[][]): Header | null {
  let headerCount = 0;
  while (headerCount < grid.length && isHeaderRow(rows[headerCount]!, grid[headerCount]!)) headerCount++;
  // No header cells anywhere: the first row may still be the header, written with plain cells.
  const plainHeader =
    headerCount === 0 && !rows.some((row) => cellsOf(row).some((cell) => cell.name === 'th')) && looksLikeHeader(grid[0]!);
  if (plainHeader) headerCount = 1;
  if (headerCount === 0) return null;
  // Header rows of one cell across the whole table ("Scoring summary") title it; they name no column.
  const tableWidth = Math.max(...grid.map(width));
  let titleCount = 0;
  while (titleCount < headerCount && grid[titleCount]!.length === 1 && tableWidth >= 2 && grid[titleCount]![0]!.width >= tableWidth)
    titleCount++;
  const headerRows = grid.slice(titleCount, headerCount);
  const titled = titleCount > 0 && headerRows.length === 0;
  // Under a title only, rows of a label cell and a value each (an infobox) are a key/value block (key-values.ts).
  if (titled && (rows.slice(headerCount).some(isLabelRow) || isSpecification(rows.slice(headerCount)))) return null;
  const columns = titled ? tableWidth : Math.max(...headerRows.map(width));
  if (columns < 2) return null;
  // Header cells that say nothing (a grid of letters or icons under empty `th`s) make no table of records.
  if (!titled && columnNames(headerRows, columns).every((name) => name === '')) return null;
  return { headerCount, headerRows, titleCount, columns, plainHeader };
}

function describeTable(table: Element, context: DetectContext, tableCount: number): { proposal: Proposal; title: TableTitle } | null {
  const rows = rowsOf(table);
  if (rows.length < 3) return null;
  const grid = rows.map(gridRow);
  const header = readHeader(rows, grid);
  if (!header) return null;
  const { headerCount, headerRows, titleCount, columns, plainHeader } = header;

  // Records: rows after the header with a plain cell and a cell per column; one cell across the table
  // (a section title such as "Regular season") is not a record.
  const body = grid
    .slice(headerCount)
    .map((cells, index) => ({ row: rows[headerCount + index]!, cells }))
    .filter(({ cells }) => cells.length >= 2 && cells.some((cell) => cell.element.name === 'td'));
  const bodyRows = body.map(({ row }) => row);
  // Regular rows: one cell per column, none spanning; short rows (trailing cells left out, as HTML allows)
  // count too, their missing cells are empty.
  const regularRows = body.filter(({ cells }) => cells.length >= 2 && width(cells) <= columns && cells.every((cell) => cell.width === 1));
  const regular = regularRows.map(({ row }) => row);
  if (regular.length < 2 || regular.length * 2 < bodyRows.length) return null;
  if (isIconGrid(regular)) return null;

  const tableSelector = uniqueSelector(table, context.sectionRoots);
  const nested = selectIn('table', table).length > 1;
  const rowBase = nested ? `${tableSelector} > * > tr, ${tableSelector} > tr` : `${tableSelector} tr`;
  const needsTwoCells = grid.slice(headerCount).some((cells) => cells.length < 2 && cells.some((cell) => cell.element.name === 'td'));
  // A plain-cell header is left out by position: it must be the first child of its parent.
  if (plainHeader && elementChildren(parentElement(rows[0]!)!)[0] !== rows[0]) return null;
  const filters = `:has(> td)${needsTwoCells ? ':has(> :nth-child(2))' : ''}${plainHeader ? ':not(:first-child)' : ''}`;
  const rowSelector = rowBase
    .split(', ')
    .map((part) => `${part}${filters}`)
    .join(', ');
  // The table's selector picks out this table alone, so its rows are counted inside it, not by a walk of the page.
  const selected = nested ? selectIn(rowSelector, context.sectionRoots) : selectIn(`tr${filters}`, table);
  if (selected.length !== bodyRows.length) return null;

  const names = new NameSet();
  const fields: Field[] = [];
  const headers = columnNames(headerRows, columns);
  headers.forEach((header, column) => {
    const position = column + 1;
    const cellSelector = `> :nth-child(${position})`;
    const cells = regularRows.map(({ cells: row }) => row[column]?.element).filter((cell): cell is Element => cell !== undefined);
    const values = cells.map((cell) => textOf(cell));
    const filled = values.filter((value) => value.length > 0);
    if (filled.length === 0) return;
    // A column without a header is named by what it holds (`rank`, `image`, `date`), never `column3`; the
    // second column under one header (`Gold` over a name and a time) by its header and what it holds.
    const spanned = sharesHeaderCell(headerRows, column);
    const content = nameFromColumn(cells, filled);
    const headerName = nameFromHeader(header);
    const name = names.take(spanned && headerName ? `${headerName}${content[0]!.toUpperCase()}${content.slice(1)}` : headerName || content);
    const numeric = filled.every((value) => isCleanNumber(value) || (looksLikePrice(value) && !/^\D*0\d/.test(value)));
    fields.push(
      numeric ? { name, type: 'number', selector: cellSelector, transform: ['number'] } : { name, type: 'string', selector: cellSelector },
    );
    // A column of links also offers the link target.
    const links = cells.map((cell) => firstDescendant(cell, isLink)).filter((link) => link && !(attr(link, 'href') ?? '').startsWith('#'));
    if (links.length * 2 > regular.length)
      fields.push({
        name: names.take(`${name}Url`),
        type: 'url',
        selector: `${cellSelector} a[href]`,
        attribute: 'href',
        transform: ['absoluteUrl'],
      });
  });
  if (fields.length < 2) return null;
  const title = tableTitle(table, titleCount > 0 ? textOf(grid[0]![0]!.element) : null);
  const caption = title.name;
  // Without a caption or heading, a table is named after what its rows are: its first text column (`players`).
  const rowsName = fields.find((field) => field.type === 'string' && !field.name.endsWith('Url'))?.name;
  const name = caption ? pluralize(caption) : tableCount === 1 || !rowsName ? 'rows' : pluralize(rowsName);
  const proposal: Proposal = {
    kind: 'table',
    field: { name, type: 'array', selector: rowSelector, fields },
    score: bodyRows.length * fields.length,
    hints: `table ${name} ${headers.join(' ')}`,
    itemElements: bodyRows,
  };
  return { proposal, title };
}
