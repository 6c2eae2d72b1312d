import { cloneNode, type AnyNode, type Document, type Element } from 'domhandler';

/**
 * What a reader of the page sees, as rules about pages in general. The structure engine reads values the way
 * a person reads the rendered page, in `run`, the daemon and the heuristic model alike:
 *
 * - text hidden from readers is not part of a value: the `hidden` attribute, an inline `display:none` or
 *   `visibility:hidden`, `aria-hidden="true"`, and the conventional class names of text kept for sorting or
 *   for screen readers only (`sortkey`, `sr-only`, `visually-hidden`, `screen-reader-text`). Sortable tables
 *   put a sort key before the shown value (`<span class="sortkey">Barton, Edmund</span>Edmund Barton`), which
 *   read naively gives "Barton, EdmundEdmund Barton";
 * - a footnote mark (`<sup>[3]</sup>`, a short bracketed reference) is not part of the value it follows
 *   (`1,379[3]` is the number 1,379);
 * - cents set as a superscript right after the units (`19<sup>99</sup> €`) are read as `19.99`: the
 *   decimal point is in the typography, not the text;
 * - a table cell spanning several rows (`rowspan`) belongs to every row it spans: a reader sees "1986" beside
 *   each single of that year. The parsed document gets a copy of the cell in each spanned row, so that the
 *   n-th cell of a row is the n-th column in every row and one selector reads the column.
 */

const HIDDEN_CLASSES = /(^|\s)(sortkey|sort-key|sr-only|visually-hidden|visuallyhidden|screen-reader-text|screenreader-only)(\s|$)/i;
const HIDDEN_STYLE = /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)\s*(!important\s*)?(;|$)/i;
const FOOTNOTE_MARK = /^\s*\[[^\][]{1,16}\]\s*$/;

export function isHiddenElement(element: Element): boolean {
  const attribs = element.attribs;
  if (attribs.hidden !== undefined) return true;
  if (attribs['aria-hidden'] === 'true') return true;
  if (attribs.style !== undefined && HIDDEN_STYLE.test(attribs.style)) return true;
  return attribs.class !== undefined && HIDDEN_CLASSES.test(attribs.class);
}

function plainText(node: AnyNode): string {
  if (node.type === 'text') return node.data;
  if ('children' in node) return (node.children as AnyNode[]).map(plainText).join('');
  return '';
}

/** `<sup>[3]</sup>`, `<sup class="reference"><a href="#cite_note-3">[3]</a></sup>`: a mark, not data. */
export function isFootnoteMark(element: Element): boolean {
  return element.name === 'sup' && FOOTNOTE_MARK.test(plainText(element));
}

/** `<sup>99</sup>` right after digits: the cents of a split price, read with a decimal point before them. */
export function isSuperscriptCents(element: Element, textBefore: string): boolean {
  return (
    element.name === 'sup' &&
    /\d$/.test(textBefore) &&
    /^\s*\d{2}\s*$/.test(plainText(element)) &&
    !/[.,]\d*$/.test(textBefore.replace(/\d+$/, ''))
  );
}

/** Elements whose text a reader does not read as part of the value around them. */
export function isUnreadElement(element: Element): boolean {
  return isHiddenElement(element) || isFootnoteMark(element);
}

function tagChildren(node: { children: AnyNode[] }): Element[] {
  return node.children.filter((child): child is Element => child.type === 'tag');
}

/** Rows of this table only (not of tables nested in its cells), in order. */
function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of tagChildren(table)) {
    if (child.name === 'tr') rows.push(child);
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot')
      rows.push(...tagChildren(child).filter((row) => row.name === 'tr'));
  }
  return rows;
}

function spanOf(cell: Element, name: 'rowspan' | 'colspan', max: number): number {
  const value = Number.parseInt(cell.attribs[name] ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, max) : 1;
}

function insertBefore(row: Element, node: Element, before: Element | undefined): void {
  const children = row.children;
  const index = before ? children.indexOf(before) : children.length;
  children.splice(index, 0, node);
  node.parent = row;
  node.prev = children[index - 1] ?? null;
  node.next = children[index + 1] ?? null;
  if (node.prev) node.prev.next = node;
  if (node.next) node.next.prev = node;
}

/**
 * Copies every row-spanning cell into the rows it spans, at its column (colspans counted), marked
 * `data-pagejson-span="row"`. Returns how many cells were added; stops adding (and returns -1) when the
 * budget of new elements runs out, so a hostile `rowspan="65534"` cannot grow the document without bound.
 */
export function expandRowSpans(doc: Document, budget: number): number {
  let added = 0;
  const tables: Element[] = [];
  const stack: AnyNode[] = [...doc.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    if (node.name === 'table') tables.push(node);
    for (const child of node.children) stack.push(child);
  }
  for (const table of tables) {
    const rows = tableRows(table);
    // carry[column] = the cell spanning down into this column, and how many more rows it covers.
    const carry: Array<{ cell: Element; left: number; width: number } | undefined> = [];
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const cells = tagChildren(row).filter((cell) => cell.name === 'td' || cell.name === 'th');
      let column = 0;
      let index = 0;
      const place = (before: Element | undefined): boolean => {
        const spanning = carry[column];
        if (!spanning || spanning.left <= 0) return false;
        if (added + spanning.width > budget) throw new RangeError('row span budget');
        const copy = cloneNode(spanning.cell, true);
        delete copy.attribs.rowspan;
        copy.attribs['data-pagejson-span'] = 'row';
        insertBefore(row, copy, before);
        added += 1;
        spanning.left -= 1;
        column += spanning.width;
        return true;
      };
      while (index < cells.length || carry.slice(column).some((c) => c && c.left > 0)) {
        if (place(cells[index])) continue;
        const cell = cells[index];
        if (!cell) {
          column += 1;
          continue;
        }
        const width = spanOf(cell, 'colspan', 1000);
        const height = spanOf(cell, 'rowspan', rows.length - r);
        if (height > 1) carry[column] = { cell, left: height - 1, width };
        else if (carry[column]?.left === 0) carry[column] = undefined;
        column += width;
        index += 1;
      }
    }
  }
  return added;
}
