import { parentElement, stableClasses, type Element } from '../../extract/index.js';
import { NOT_ITEMS, type Group, type Stats } from './item-groups.js';
import { isChrome } from './region-kinds.js';

/**
 * One listing spread over several containers: rows, columns or sections of the same records (a page of
 * shelves, each under its own heading, each a carousel of the same cards). Read apart, every container is a
 * short list and the page's main list is lost; read together, it is one region of all its records.
 */

const SPREAD_LEVELS = [2, 3, 4, 5];
const MIN_SPREAD_ITEMS = 4;

/** Some text and some structure: a record, not a label or a bare link. */
function looksLikeRecord(element: Element, stats: Map<Element, Stats>): boolean {
  const own = stats.get(element)!;
  return own.textLength >= 15 && own.descendants >= 2;
}

/**
 * Items at the same tag path below one ancestor two to five levels up form one region when they come from at
 * least two containers, look like records (some text, some structure), and each is a small part of the region
 * (layout blocks are not records).
 */
export function findSpreadGroups(elements: Element[], stats: Map<Element, Stats>): Group[] {
  const groups: Group[] = [];
  const seen = new Map<Element, number>();
  for (const level of SPREAD_LEVELS) {
    const buckets = new Map<Element, Map<string, Element[]>>();
    for (const element of elements) {
      if (NOT_ITEMS.has(element.name) || element.name === 'tr') continue;
      if (!looksLikeRecord(element, stats)) continue;
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

/** The first class every item has, or ''. */
function sharedClass(items: Element[]): string {
  return stableClasses(items[0]!).find((cls) => items.every((item) => stableClasses(item).includes(cls))) ?? '';
}

function escapeClass(cls: string): string {
  return cls.replace(/([^A-Za-z0-9_-])/g, '\\$1');
}

/** The deepest element holding all of them. */
function commonAncestor(elements: Element[]): Element | null {
  const chain: Element[] = [];
  for (let current: Element | null = elements[0]!; current; current = parentElement(current)) chain.push(current);
  let deepest = 0;
  for (const element of elements.slice(1)) {
    let index = -1;
    for (let current: Element | null = element; current && index < 0; current = parentElement(current)) index = chain.indexOf(current);
    if (index < 0) return null;
    deepest = Math.max(deepest, index);
  }
  return chain[deepest] ?? null;
}

/**
 * Sibling groups of one kind of item (tag and class) in containers of one kind (tag and class) are one region:
 * `div.shelf > li.card` in every section, the sections built alike. A class is needed on one side at least
 * (bare `ul > li` is every menu), and furniture is never merged with content.
 */
export function findCousinGroups(groups: Group[], stats: Map<Element, Stats>): Group[] {
  const bySignature = new Map<string, { groups: Group[]; members: string }>();
  for (const group of groups) {
    if (group.path) continue;
    const item = group.items[0]!;
    const itemClass = sharedClass(group.items);
    const containerClass = stableClasses(group.parent)[0] ?? '';
    if (!itemClass && !containerClass) continue;
    const members = `${group.parent.name}${containerClass ? `.${escapeClass(containerClass)}` : ''} > ${item.name}${itemClass ? `.${escapeClass(itemClass)}` : ''}`;
    const entry = bySignature.get(members) ?? { groups: [], members };
    entry.groups.push(group);
    bySignature.set(members, entry);
  }
  const cousins: Group[] = [];
  for (const { groups: alike, members } of bySignature.values()) {
    // Cheap first: groups holding no record at all (the facts inside every card) are not looked at further.
    if (alike.length < 2 || !alike.some((group) => group.items.some((item) => looksLikeRecord(item, stats)))) continue;
    // Furniture is never merged with content: each part on its own.
    const chrome = alike.map((group) => isChrome(group.parent));
    for (const part of [alike.filter((_, index) => !chrome[index]), alike.filter((_, index) => chrome[index])]) {
      const cousin = sectionsOfOneList(part, members, stats);
      if (cousin) cousins.push(cousin);
    }
  }
  return cousins;
}

/** Groups alike as one region, or null when they are not sections of one list. */
function sectionsOfOneList(alike: Group[], members: string, stats: Map<Element, Stats>): Group | null {
  if (alike.length < 2) return null;
  const items = alike.flatMap((group) => group.items);
  // Lists of labels or links inside records (a card's facts, in every card) are parts of records.
  if (items.length < MIN_SPREAD_ITEMS || items.filter((item) => looksLikeRecord(item, stats)).length * 5 < items.length * 4) return null;
  const parents = new Set(alike.map((group) => group.parent));
  // Lists nested in each other (replies under comments) are a thread, not sections of one list.
  if (alike.some((group) => hasAncestorIn(group.parent, parents))) return null;
  const ancestor = commonAncestor([...parents]);
  if (!ancestor || !stats.has(ancestor)) return null;
  // Sections of one listing repeat one template: their containers sit at the same path below the ancestor.
  // Lists alike in unlike places (a section's and a sidebar box's) are lists of their own.
  const paths = new Set([...parents].map((parent) => tagPath(parent, ancestor)));
  return paths.size === 1 ? { parent: ancestor, items, members } : null;
}

/** `div>section>div`: the tags from just below the ancestor down to the element. */
function tagPath(element: Element, ancestor: Element): string {
  const names: string[] = [];
  for (let current: Element | null = element; current && current !== ancestor; current = parentElement(current))
    names.unshift(current.name);
  return names.join('>');
}

function hasAncestorIn(element: Element, candidates: Set<Element>): boolean {
  for (let current = parentElement(element); current; current = parentElement(current)) if (candidates.has(current)) return true;
  return false;
}
