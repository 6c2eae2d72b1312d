import type { Field } from '../config/index.js';

/**
 * The header each table column is read under (issue 33): for a list whose items are table rows
 * (`… table … tr…`) and whose fields read a cell by position (`td:nth-child(3)`, `> :nth-child(3)`), the text
 * of the header cell at that position in the table's first header row. A table inserted above the one a
 * config reads, or columns reordered, put another header over the column: the judgement says so even when
 * the values keep their kind. Read by a second, small extraction of the same page (retrieve.ts), as fields
 * of a structure made here, so the extraction engine needs nothing new.
 */
export interface HeaderStructure {
  /** Fields to extract from the page: one per column, named `h0`, `h1`, …. */
  structure: Field[];
  /** Which field path each of those names stands for (`h0` → `rows.moons`). */
  columns: Map<string, string>;
}

/** Where each compound of a selector starts (combinators outside parentheses end one). */
function compoundStarts(selector: string): number[] {
  const starts = [0];
  let depth = 0;
  for (let at = 0; at < selector.length; at += 1) {
    const char = selector[at]!;
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (depth === 0 && /[\s>+~]/.test(char)) {
      let next = at;
      while (next < selector.length && /[\s>+~]/.test(selector[next]!)) next += 1;
      if (next < selector.length) starts.push(next);
      at = next - 1;
    }
  }
  return starts;
}

/** The table part of a list selector whose last compound reads rows (`tr`, after an optional `tbody`). */
function tableOf(selector: string): string | undefined {
  const starts = compoundStarts(selector);
  const compound = (index: number) => selector.slice(starts[index], starts[index + 1] ?? selector.length).replace(/[\s>+~]+$/, '');
  let last = starts.length - 1;
  if (last < 1 || !/^tr(?![\w-])/.test(compound(last))) return undefined;
  last -= 1;
  if (/^tbody(?![\w-])/.test(compound(last))) last -= 1;
  if (last < 0 || !Array.from({ length: last + 1 }, (_, index) => compound(index)).some((part) => /^table(?![\w-])/.test(part)))
    return undefined;
  return selector.slice(0, starts[last + 1]).replace(/[\s>+~]+$/, '');
}
const CELL = /^(?:>\s*)?(?:td|th|\*)?:nth-(?:child|of-type)\((\d{1,2})\)$/;
/** At most this many columns are followed per endpoint: a header read is one selector each. */
const MAX_COLUMNS = 24;

export function headerStructure(structure: Field[]): HeaderStructure | undefined {
  const fields: Field[] = [];
  const columns = new Map<string, string>();
  for (const list of structure) {
    if (list.type !== 'array' || !list.fields || list.selector === undefined || list.selector.includes(',')) continue;
    const table = tableOf(list.selector.trim());
    if (!table) continue;
    for (const field of list.fields) {
      const position = field.selector === undefined ? undefined : CELL.exec(field.selector.trim())?.[1];
      if (position === undefined || fields.length >= MAX_COLUMNS) continue;
      const name = `h${fields.length}`;
      fields.push({ name, type: 'string', selector: `${table} tr:has(> th) > :nth-child(${Number(position)})` });
      columns.set(name, `${list.name}.${field.name}`);
    }
  }
  return fields.length > 0 ? { structure: fields, columns } : undefined;
}

/** The headers by field path, from the small extraction's data (empty headers left out). */
export function headersFrom(found: HeaderStructure, data: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, path] of found.columns) {
    const value = Object.hasOwn(data, name) ? data[name] : undefined;
    if (typeof value === 'string' && value.trim() !== '')
      Object.defineProperty(headers, path, { value: value.replace(/\s+/g, ' ').trim().slice(0, 200), enumerable: true });
  }
  return headers;
}
