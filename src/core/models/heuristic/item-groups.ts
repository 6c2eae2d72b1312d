import { elementChildren, parentElement, selectIn, stableClasses, type Element } from '../../extract/index.js';

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
}

export interface Stats {
  textLength: number;
  descendants: number;
  links: number;
}

/** Roughly the length of the element's own text (scores only need a size), without building strings. */
function ownTextLength(element: Element): number {
  let length = 0;
  for (const child of element.children) if (child.type === 'text') length += (child as unknown as { data: string }).data.trim().length;
  return length;
}

/** Text length, element count and link count of every subtree, bottom-up in one pass. */
export function subtreeStats(elements: Element[]): Map<Element, Stats> {
  const stats = new Map<Element, Stats>();
  for (let i = elements.length - 1; i >= 0; i--) {
    const element = elements[i]!;
    const own: Stats = { textLength: ownTextLength(element), descendants: 0, links: element.name === 'a' ? 1 : 0 };
    for (const child of elementChildren(element)) {
      const childStats = stats.get(child);
      if (!childStats) continue;
      own.textLength += childStats.textLength;
      own.descendants += 1 + childStats.descendants;
      own.links += childStats.links;
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
      if (child.name === 'table' && selectIn('th', child).length > 0) continue;
      const list = byTag.get(child.name) ?? [];
      list.push(child);
      byTag.set(child.name, list);
    }
    for (const siblings of byTag.values()) {
      if (siblings.length < MIN_ITEMS) continue;
      const classCounts = new Map<string, number>();
      for (const sibling of siblings) for (const cls of stableClasses(sibling)) classCounts.set(cls, (classCounts.get(cls) ?? 0) + 1);
      const [bestClass, bestCount] = [...classCounts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['', 0];
      // Siblings sharing a class are the items among other siblings that are not records (HN's `tr.athing`
      // between empty spacer rows). When the others hold as much content, they are records too, styled otherwise
      // (a featured card, another widget type): then every sibling is an item.
      const classed = bestCount >= MIN_ITEMS ? siblings.filter((sibling) => stableClasses(sibling).includes(bestClass)) : siblings;
      const others = siblings.filter((sibling) => !classed.includes(sibling));
      const averageText = (list: Element[]) =>
        list.reduce((sum, element) => sum + stats.get(element)!.textLength, 0) / Math.max(1, list.length);
      const items = others.length > 0 && averageText(others) * 2 >= averageText(classed) ? siblings : classed;
      // Rows of a data table (one with header cells) are the table detector's.
      if (items[0]!.name === 'tr' && selectIn('th', parent).length > 0) continue;
      groups.push({ parent, items });
    }
  }
  return groups;
}

/**
 * Records spread over several containers: one listing split into rows, sections or columns (`main > div >
 * section` three times over). Items at the same tag path below one ancestor two to five levels up form one
 * region when they come from at least two containers, look like records (some text, some structure), and
 * each is a small part of the region (layout blocks are not records).
 */
const SPREAD_LEVELS = [2, 3, 4, 5];
const MIN_SPREAD_ITEMS = 4;

function findSpreadGroups(elements: Element[], stats: Map<Element, Stats>): Group[] {
  const groups: Group[] = [];
  const seen = new Map<Element, number>();
  for (const level of SPREAD_LEVELS) {
    const buckets = new Map<Element, Map<string, Element[]>>();
    for (const element of elements) {
      if (NOT_ITEMS.has(element.name) || element.name === 'tr') continue;
      const own = stats.get(element)!;
      if (own.textLength < 15 || own.descendants < 2) continue;
      const names = [element.name];
      let ancestor: Element | null = element;
      for (let step = 0; step < level && ancestor; step++) {
        ancestor = parentElement(ancestor);
        if (ancestor && step < level - 1) names.unshift(ancestor.name);
      }
      // The ancestor must lie inside the section (the selector is built from it).
      if (!ancestor || !stats.has(ancestor)) continue;
      const byPath = buckets.get(ancestor) ?? new Map<string, Element[]>();
      buckets.set(ancestor, byPath);
      const key = names.join('>');
      const list = byPath.get(key) ?? [];
      list.push(element);
      byPath.set(key, list);
    }
    for (const [ancestor, byPath] of buckets) {
      const total = stats.get(ancestor)!.textLength;
      for (const [key, items] of byPath) {
        if (items.length < MIN_SPREAD_ITEMS) continue;
        const containers = new Set(items.map((item) => item.parent));
        // Two or more containers, each holding several records (one or two per container are parts of a
        // record, and the containers are the records).
        if (containers.size < 2 || items.length * 2 < containers.size * 5) continue;
        if (items.some((item) => stats.get(item)!.textLength * 4 > total)) continue;
        // Records of one region look alike: most share their first class (or have none).
        const signature = (item: Element) => stableClasses(item)[0] ?? '';
        const counts = new Map<string, number>();
        for (const item of items) counts.set(signature(item), (counts.get(signature(item)) ?? 0) + 1);
        if (Math.max(...counts.values()) * 5 < items.length * 4) continue;
        // The same items seen from a higher ancestor are the same region.
        const first = items[0]!;
        if (seen.has(first) && seen.get(first) === items.length) continue;
        seen.set(first, items.length);
        groups.push({ parent: ancestor, items, path: key.split('>') });
      }
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
  const spread = findSpreadGroups(elements, stats);
  // The containers of a spread region (rows of cards) hold records; they are not records themselves.
  const containerSets = spread.map((group) => new Set(group.items.map((item) => item.parent)));
  const siblings = findGroups(elements, stats).filter(
    (group) => !containerSets.some((containers) => group.items.every((item) => containers.has(item))),
  );
  return [...siblings, ...spread];
}
