import type { Field } from '../../config/index.js';
import { elementChildren, parentElement, selectIn, textOf, uniqueSelector, type Element } from '../../extract/index.js';
import { camelCase, NameSet, splitWords } from './naming.js';
import { isSpecification } from './table-columns.js';
import { isHiddenOrNavigation } from './tables.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * Key/value blocks: specification lists (`dl` of `dt`/`dd`) and two-column tables whose rows each hold a
 * label cell and a value cell (infoboxes, spec tables). Each becomes an object with one field per label.
 * Values are found by their label (`dt:contains("Weight") + dd`), not their position: the same template
 * lists different specifications for different products.
 */

const MAX_PAIRS = 40;

interface Pair {
  label: string;
  selector: string;
}

function usableLabel(label: string): boolean {
  return label.length > 0 && label.length <= 40 && !/["\\]/.test(label);
}

function definitionPairs(list: Element, listSelector: string): Pair[] {
  const pairs: Pair[] = [];
  for (const term of elementChildren(list).filter((child) => child.name === 'dt')) {
    const next = elementChildren(list)[elementChildren(list).indexOf(term) + 1];
    const label = textOf(term).replace(/:$/, '');
    if (next?.name === 'dd' && textOf(next) && usableLabel(label))
      pairs.push({ label, selector: `${listSelector} dt:contains("${label}") + dd` });
  }
  return pairs;
}

function tablePairs(table: Element, tableSelector: string): Pair[] {
  const rows = selectIn('tr', table).filter((row) => !selectIn('table', row).some((nested) => nested !== row));
  const pairs: Pair[] = [];
  const labelRows: Element[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const cells = elementChildren(row).filter((cell) => cell.name === 'th' || cell.name === 'td');
    // A row of one cell across the block (an infobox's title, image or section heading) holds no pair.
    if (cells.length <= 1) continue;
    if (cells.length !== 2 || cells[1]!.name !== 'td') return [];
    labelRows.push(row);
    const label = textOf(cells[0]!).replace(/:$/, '');
    // A label met again (Wimbledon under Singles, then under Doubles) would read the first one's value.
    if (!usableLabel(label) || !textOf(cells[1]!) || seen.has(label)) continue;
    seen.add(label);
    const selector =
      cells[0]!.name === 'th' ? `${tableSelector} tr:has(> th:contains("${label}")) > td` : `${tableSelector} td:contains("${label}") + td`;
    pairs.push({ label, selector });
  }
  // A table whose first cells are all th is a key/value table; with td labels, only when labels end in ":"
  // or the table is a specification under a title row.
  const labelledByTh = labelRows.every((row) => elementChildren(row)[0]?.name === 'th');
  const labelledByColon = labelRows.every((row) => /:\s*$/.test(textOf(elementChildren(row)[0] ?? row)));
  const titleCells = rows[0] ? elementChildren(rows[0]) : [];
  const titled = titleCells.length === 1 && titleCells[0]!.name === 'th' && isSpecification(rows);
  return labelRows.length > 0 && (labelledByTh || labelledByColon || titled) ? pairs : [];
}

/** The heading just before the block (or before its wrapper) names it: "Performance", "Physical". */
function blockName(block: Element): string | null {
  for (let current: Element | null = block; current; current = parentElement(current)) {
    for (let sibling = current.prev; sibling; sibling = sibling.prev) {
      if (sibling.type !== 'tag') continue;
      const element = sibling as Element;
      if (/^h[1-6]$/.test(element.name) || element.name === 'caption') return camelCase(splitWords(textOf(element)).slice(0, 3)) || null;
      break;
    }
    const caption = elementChildren(current).find((child) => child.name === 'caption');
    if (caption) return camelCase(splitWords(textOf(caption)).slice(0, 3)) || null;
    if (current !== block) break;
  }
  // An infobox titles itself in a first row of one header cell across it.
  const firstRow = block.name === 'table' ? selectIn('tr', block)[0] : undefined;
  const firstCells = firstRow ? elementChildren(firstRow) : [];
  if (firstCells.length === 1 && firstCells[0]!.name === 'th') return camelCase(splitWords(textOf(firstCells[0]!)).slice(0, 3)) || null;
  return null;
}

export function detectKeyValues(context: DetectContext): Proposal[] {
  const proposals: Proposal[] = [];
  const topNames = new NameSet();
  // Navigation boxes list links under group labels: they describe the site, not the page's subject.
  const blocks = selectIn('dl, table', context.sectionRoots).filter((block) => !isHiddenOrNavigation(block));
  for (const block of blocks) {
    // Cheap shape check first: a selector is only worth computing for a block that has pairs.
    if ((block.name === 'dl' ? definitionPairs(block, '') : tablePairs(block, '')).length < 2) continue;
    const blockSelector = uniqueSelector(block, context.sectionRoots);
    const pairs = (block.name === 'dl' ? definitionPairs(block, blockSelector) : tablePairs(block, blockSelector)).slice(0, MAX_PAIRS);
    if (pairs.length < 2) continue;
    const names = new NameSet();
    const fields: Field[] = pairs.map((pair) => ({
      name: names.take(camelCase(splitWords(pair.label).slice(0, 4)) || 'value'),
      type: 'string',
      selector: pair.selector,
    }));
    const name = topNames.take(blockName(block) ?? 'details');
    proposals.push({
      kind: 'table',
      field: { name, type: 'object', fields },
      score: pairs.length,
      hints: `${name} ${pairs.map((pair) => pair.label).join(' ')}`,
    });
  }
  return proposals;
}
