import { elementChildren, firstDescendant, isElement, parentElement, stableClasses, type Element } from '../../extract/index.js';
import { findCousinGroups, findSpreadGroups } from './spread-groups.js';

/**
 * Candidate regions of records: sibling groups (elements sharing a tag and a class, or a tag, under one parent)
 * and regions spread over several containers. Found in one pass over the section, with each subtree's size
 * computed bottom-up once.
 */

export const NOT_ITEMS = new Set([
  'td',
  'th',
  'thead',
  'tbody',
  'tfoot',
  'option',
  'optgroup',
  'script',
  'style',
  'meta',
  'link',
  'br',
  'hr',
  'source',
  'col',
  'colgroup',
  'head',
  'title',
  'path',
  'g',
  'svg',
  'input',
  'button',
  'span',
  'img',
  'b',
  'i',
  'em',
  'strong',
  'small',
  'dd',
  'dt',
]);
export const MIN_ITEMS = 3;

export interface Group {
  parent: Element;
  items: Element[];
  /**
   * For a region spread over several containers: the tag names from `parent` (their common ancestor) down to
   * the items, items last (`['div', 'section']` for `ancestor > div > section`).
   */
  path?: string[];
  /** For sections of one list (spread-groups.ts): `container > item` by tag and class, the same in every section. */
  members?: string;
}

export interface Stats {
  textLength: number;
  descendants: number;
  links: number;
  images: number;
  /** Loading placeholders in the subtree (skeleton screens): elements a page shows until its records arrive. */
  placeholders: number;
}

/** Class names of loading placeholders (`skeleton-text`, `react-loading-skeleton`, `Placeholder__skeletonTitle`, `shimmer`). */
export const PLACEHOLDER_CLASS = /(^|[-_\s])(skeleton|shimmer)/i;
/** The same, as a selector the structure engine runs. */
export const PLACEHOLDER_SELECTOR = '[class*="skeleton"], [class*="Skeleton"], [class*="shimmer"]';

/** A loading placeholder, or an item built of them: where a record will be, not a record. */
export function isPlaceholder(element: Element, stats: Map<Element, Stats>): boolean {
  return (stats.get(element)?.placeholders ?? 0) > 0;
}

/** Nothing a reader sees: no text, link or image (a spacer, a carousel's clone slot, a loading slot). */
export function isBlank(element: Element, stats: Map<Element, Stats>): boolean {
  const own = stats.get(element);
  return own !== undefined && own.textLength === 0 && own.links === 0 && own.images === 0;
}

/** Roughly the length of the element's own text (scores only need a size), without building strings. */
function ownTextLength(element: Element): number {
  let length = 0;
  for (const child of element.children) if (child.type === 'text') length += (child as unknown as { data: string }).data.trim().length;
  return length;
}

const isHeaderCell = (element: Element) => element.name === 'th';

/** Text length, element, link and image counts of every subtree, bottom-up in one pass. */
export function subtreeStats(elements: Element[]): Map<Element, Stats> {
  const stats = new Map<Element, Stats>();
  for (let i = elements.length - 1; i >= 0; i--) {
    const element = elements[i]!;
    const own: Stats = {
      textLength: ownTextLength(element),
      descendants: 0,
      links: element.name === 'a' ? 1 : 0,
      images: element.name === 'img' ? 1 : 0,
      placeholders: PLACEHOLDER_CLASS.test(element.attribs.class ?? '') ? 1 : 0,
    };
    for (const child of element.children) {
      const childStats = isElement(child) ? stats.get(child) : undefined;
      if (!childStats) continue;
      own.textLength += childStats.textLength;
      own.descendants += 1 + childStats.descendants;
      own.links += childStats.links;
      own.images += childStats.images;
      own.placeholders += childStats.placeholders;
    }
    stats.set(element, own);
  }
  return stats;
}

function findGroups(elements: Element[], stats: Map<Element, Stats>): Group[] {
  const groups: Group[] = [];
  for (const parent of elements) {
    // Most elements have fewer than three element children: skip them before building anything.
    let elementCount = 0;
    for (const child of parent.children) if (child.type === 'tag' && ++elementCount >= MIN_ITEMS) break;
    if (elementCount < MIN_ITEMS) continue;
    const byTag = new Map<string, Element[]>();
    for (const child of elementChildren(parent)) {
      if (NOT_ITEMS.has(child.name)) continue;
      // Tables with header cells are data tables (the table detector reads their rows), not records.
      if (child.name === 'table' && firstDescendant(child, isHeaderCell) !== null) continue;
      const list = byTag.get(child.name) ?? [];
      list.push(child);
      byTag.set(child.name, list);
    }
    for (const all of byTag.values()) {
      // Placeholders among records (the rest of a list still loading) are not records; all of them are a list.
      const loaded = all.filter((sibling) => !isPlaceholder(sibling, stats));
      const siblings = loaded.length >= MIN_ITEMS ? loaded : all;
      if (siblings.length < MIN_ITEMS) continue;
      const classCounts = new Map<string, number>();
      for (const sibling of siblings) for (const cls of stableClasses(sibling)) classCounts.set(cls, (classCounts.get(cls) ?? 0) + 1);
      const [bestClass, bestCount] = [...classCounts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['', 0];
      // Siblings sharing a class are the items among other siblings that are not records (HN's `tr.athing`
      // between empty spacer rows). When the others hold as much content, they are records too, styled otherwise
      // (a featured card, another widget type): then every sibling is an item.
      const classed = bestCount >= MIN_ITEMS ? siblings.filter((sibling) => stableClasses(sibling).includes(bestClass)) : siblings;
      // Through a set: a list search per sibling is quadratic on a table body of thousands of rows.
      const inClassed = new Set(classed);
      const others = siblings.filter((sibling) => !inClassed.has(sibling));
      const averageText = (list: Element[]) =>
        list.reduce((sum, element) => sum + stats.get(element)!.textLength, 0) / Math.max(1, list.length);
      const items = others.length > 0 && averageText(others) * 2 >= averageText(classed) ? siblings : classed;
      // Rows of a data table (one with header cells) are the table detector's.
      if (items[0]!.name === 'tr' && firstDescendant(parent, isHeaderCell) !== null) continue;
      groups.push({ parent, items });
    }
  }
  return groups;
}

/** The element is one of the items, or inside one (parts of the same records found again). */
export function insideAny(element: Element, items: Set<Element>): boolean {
  for (let current: Element | null = element; current; current = parentElement(current)) if (items.has(current)) return true;
  return false;
}

/** The sibling groups and spread regions that may hold records. */
export function candidateGroups(elements: Element[], stats: Map<Element, Stats>): Group[] {
  const sibling = findGroups(elements, stats);
  const spread = [...findSpreadGroups(elements, stats), ...findCousinGroups(sibling, stats)];
  // The containers of a spread region (rows of cards) hold records; they are not records themselves.
  const containerSets = spread.map((group) => new Set(group.items.map((item) => item.parent)));
  const siblings = sibling.filter((group) => !containerSets.some((containers) => group.items.every((item) => containers.has(item))));
  return [...siblings, ...spread];
}
