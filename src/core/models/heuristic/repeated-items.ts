import type { Field } from '../../config/index.js';
import {
  allElements,
  elementChildren,
  groupSelector,
  isInside,
  parentElement,
  selectIn,
  stableClasses,
  textOf,
  uniqueSelector,
  type Element,
} from '../../extract/index.js';
import { itemFields } from './item-fields.js';
import { camelCase, isReadableName, isReadableWord, isUtilityClass, NameSet, pluralize, splitWords } from './naming.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * Repeated item regions: sibling elements sharing a tag and a class (or just a tag), at least three, such as
 * product cards, search results, job or property listings, forum posts. Each becomes an array of objects.
 * Finding candidates is one pass over the section; only the most promising few get the costlier field analysis.
 */

const NOT_ITEMS = new Set([
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
const CHROME = new Set(['nav', 'header', 'footer', 'aside', 'menu']);
const CHROME_CLASS =
  /(^|[-_ ])(nav|navbar|navbox|menu|breadcrumbs?|pagination|pager|footer|header|sidebar|social|share|tabs?|filters?|facets?|toc|masthead|references|reflist|citations?|footnotes|see-?also)([-_ ]|$)/i;
const MIN_ITEMS = 3;
const ANALYSED_GROUPS = 12;
const KEPT_GROUPS = 3;
const MIN_TRAILING_ITEMS = 10;

interface Group {
  parent: Element;
  items: Element[];
  /**
   * For a region spread over several containers: the tag names from `parent` (their common ancestor) down to
   * the items, items last (`['div', 'section']` for `ancestor > div > section`).
   */
  path?: string[];
}

interface Stats {
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
function subtreeStats(elements: Element[]): Map<Element, Stats> {
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
      const inClassed = new Set(classed);
      const others = siblings.filter((sibling) => !inClassed.has(sibling));
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
function insideAny(element: Element, items: Set<Element>): boolean {
  for (let current: Element | null = element; current; current = parentElement(current)) if (items.has(current)) return true;
  return false;
}

/**
 * Class names and id that can say "this is page chrome", with what only describes a layout taken out: BEM
 * modifiers (`product-list--with-sidebar` is a product list) and `with-`/`has-`/`no-` phrases.
 */
function chromeNames(element: Element): string[] {
  return `${element.attribs.class ?? ''} ${element.attribs.id ?? ''}`
    .split(/\s+/)
    .filter((name) => name.length > 0)
    .map((name) => name.replace(/--.*$/, '').replace(/(^|[-_])(with|has|no)[-_][a-z]+/gi, ''));
}

function isChrome(element: Element): boolean {
  for (let current: Element | null = element; current; current = parentElement(current)) {
    if (CHROME.has(current.name) || current.attribs.role === 'navigation') return true;
    if (chromeNames(current).some((name) => CHROME_CLASS.test(name))) return true;
  }
  return false;
}

/** Menus, tag clouds, "see also" lists: each item one short link and nothing else. */
function isLinkList(fields: Field[], items: Element[], stats: Map<Element, Stats>): boolean {
  const avgText = items.reduce((sum, item) => sum + stats.get(item)!.textLength, 0) / items.length;
  const avgLinks = items.reduce((sum, item) => sum + stats.get(item)!.links, 0) / items.length;
  // Icon and letter grids: rows of links of a character or two each (an alphabet, flags, social icons).
  if (avgLinks >= 2 && avgText / avgLinks < 4) return true;
  return fields.every((field) => field.type === 'url' || field.name === 'title') && fields.length <= 2 && avgText < 40;
}

const TEXT_LIST = '$text';
const INLINE_TEXT = new Set(['b', 'strong', 'em', 'i', 'u', 'small', 'sup', 'sub', 'mark', 'abbr', 'code', 'br', 'span', 'p']);

/** Items that are plain text (ingredients, bullet points) make an array of strings. */
function textListField(items: Element[]): Field[] {
  const texts = items.map(textOf);
  // Microdata properties are read by the microdata detector; here only plain formatted text counts.
  const plain = items.every(
    (item) =>
      item.attribs.itemprop === undefined &&
      elementChildren(item).every((child) => INLINE_TEXT.has(child.name) && child.attribs.itemprop === undefined),
  );
  return plain && texts.every((text) => text.length > 0) && new Set(texts).size > 1
    ? [{ name: TEXT_LIST, type: 'string', selector: ':scope' }]
    : [];
}

const GENERIC_WORDS = new Set([
  'container',
  'wrapper',
  'wrap',
  'grid',
  'row',
  'rows',
  'col',
  'cols',
  'list',
  'lists',
  'inner',
  'outer',
  'clearfix',
  'section',
  'content',
  'main',
  'items',
  'item',
  'card',
  'cards',
  'box',
  'block',
  'tile',
  'pod',
  'entry',
  'entries',
  'body',
  'group',
  'page',
  'layout',
  'flex',
  'unstyled',
  'plain',
  'view',
  'area',
  'panel',
  'ol',
  'ul',
  'li',
  'div',
  'lg',
  'md',
  'sm',
  'xs',
  'col',
  'span',
  'mt',
  'mb',
  'p',
  'd',
  'js',
  'u',
  'is',
  'has',
  'the',
  'of',
  'all',
  'latest',
  'recent',
  'new',
  'featured',
  'search',
  'relative',
  'absolute',
  'static',
  'hidden',
  'visible',
  'col',
  'xs',
  'sm',
  'md',
  'lg',
  'xl',
  'pull',
  'clearfix',
  'default',
  'active',
  'first',
  'last',
  'odd',
  'even',
  'type',
  'status',
  'publish',
  // Widgets and layout of carousels and grids: how a list is shown, not what it holds.
  'slick',
  'swiper',
  'carousel',
  'slider',
  'slide',
  'slides',
  'owl',
  'scroll',
  'scroller',
  'track',
  'align',
  'horizontal',
  'vertical',
  'responsive',
  'responsivegrid',
  'visually',
  'mojo',
  'module',
  'widget',
  'component',
]);

/** `products`, `results`, `jobs`: from the item's classes, then the container's id and classes. */
function arrayName(group: Group): string {
  const first = group.items[0]!;
  // A wrapper item (`li` around `article.product_pod`) is named by what it wraps.
  const children = elementChildren(first);
  const wrapped = children.length === 1 ? stableClasses(children[0]!) : [];
  const sources = [...stableClasses(first), ...wrapped, group.parent.attribs.id ?? '', ...stableClasses(group.parent)].filter(
    (cls) => !isUtilityClass(cls),
  );
  for (const source of sources) {
    const word = splitWords(source).find(
      (candidate) => !GENERIC_WORDS.has(candidate) && /^[a-z]{3,20}$/.test(candidate) && isReadableWord(candidate),
    );
    if (word) return pluralize(word);
  }
  return headingName(group) ?? 'items';
}

/** The heading just before the region (or before one of its ancestors, three up at most): "Related products". */
function headingName(group: Group): string | null {
  let current: Element | null = group.parent;
  for (let level = 0; current && level < 3; level++, current = parentElement(current)) {
    for (let sibling = current.prev; sibling; sibling = sibling.prev) {
      if (sibling.type !== 'tag') continue;
      const element = sibling as Element;
      const heading = /^h[1-6]$/.test(element.name) ? element : selectIn('h2, h3, h4', element).pop();
      if (!heading) break;
      const words = splitWords(textOf(heading)).filter((word) => !/^(the|of|a|an|and|for|to|in|our|your|more|see|all)$/.test(word));
      const name = camelCase(words.slice(0, 3));
      return name.length > 2 && isReadableName(name) ? name : null;
    }
    if (elementChildren(current).some((child) => /^h[1-6]$/.test(child.name) && child !== group.items[0])) {
      const heading = elementChildren(current).find((child) => /^h[1-6]$/.test(child.name))!;
      const name = camelCase(splitWords(textOf(heading)).slice(0, 3));
      return name.length > 2 && isReadableName(name) ? name : null;
    }
  }
  return null;
}

/** `ancestor > div > section`: the path below the ancestor, by tag, with the item's shared class when it has one. */
function spreadSelector(group: Group, context: DetectContext): string | null {
  const path = group.path!;
  const base = `${uniqueSelector(group.parent, context.sectionRoots)} > ${path.join(' > ')}`;
  const shared = stableClasses(group.items[0]!).filter((cls) => group.items.every((item) => stableClasses(item).includes(cls)));
  const candidates = [...shared.map((cls) => `${base}.${cls.replace(/([^A-Za-z0-9_-])/g, '\\$1')}`), base];
  const wanted = new Set(group.items);
  for (const candidate of candidates) {
    const found = selectIn(candidate, context.sectionRoots);
    if (found.length === group.items.length && found.every((element) => wanted.has(element))) return candidate;
  }
  return null;
}

/** The sibling groups and spread regions that may hold records. */
function candidateGroups(elements: Element[], stats: Map<Element, Stats>): Group[] {
  const spread = findSpreadGroups(elements, stats);
  // The containers of a spread region (rows of cards) hold records; they are not records themselves.
  const containerSets = spread.map((group) => new Set(group.items.map((item) => item.parent)));
  const siblings = findGroups(elements, stats).filter(
    (group) => !containerSets.some((containers) => group.items.every((item) => containers.has(item))),
  );
  return [...siblings, ...spread];
}

/** Each group with a score from its items' size, text and links (chrome and link lists weigh less), best first. */
function scoreGroups(groups: Group[], stats: Map<Element, Stats>): Array<{ group: Group; score: number }> {
  return groups
    .map((group) => {
      const itemStats = group.items.map((item) => stats.get(item)!);
      const avgText = itemStats.reduce((sum, s) => sum + s.textLength, 0) / group.items.length;
      const avgDescendants = itemStats.reduce((sum, s) => sum + s.descendants, 0) / group.items.length;
      const avgLinks = itemStats.reduce((sum, s) => sum + s.links, 0) / group.items.length;
      let score = group.items.length * Math.log2(2 + Math.min(avgText, 400)) * Math.min(1 + avgDescendants, 20);
      if (isChrome(group.parent)) score *= 0.15;
      if (avgLinks >= 0.9 && avgDescendants <= 1.5 && avgText < 30) score *= 0.3;
      return { group, score };
    })
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score);
}

/** Regions nested in each other or sharing items (either one's items inside the other's, or its parent). */
function regionsOverlap(candidate: Group, other: Group): boolean {
  const otherItems = new Set(other.items);
  const candidateItems = new Set(candidate.items);
  return (
    candidate.items.some((item) => insideAny(item, otherItems)) ||
    other.items.some((item) => insideAny(item, candidateItems)) ||
    other.items.some((item) => item === candidate.parent || isInside(candidate.parent, item)) ||
    candidate.items.some((item) => item === other.parent || isInside(other.parent, item))
  );
}

/** Regions one of whose items lies inside (or is) an item of the other. */
function regionsShareItems(candidate: Group, other: Group): boolean {
  return (
    candidate.items.some((item) => insideAny(item, new Set(other.items))) ||
    other.items.some((item) => insideAny(item, new Set(candidate.items)))
  );
}

/** The selector that picks exactly a region's items, or null. */
function regionSelector(group: Group, context: DetectContext): string | null {
  return group.path ? spreadSelector(group, context) : groupSelector(group.items, context.sectionRoots);
}

export function detectRepeatedItems(context: DetectContext): Proposal[] {
  const elements = allElements(context.sectionRoots);
  const stats = subtreeStats(elements);
  const scored = scoreGroups(candidateGroups(elements, stats), stats);
  // The best-scored few, and always the region with the most items (it may be offered last, see below).
  const prescored = scored.slice(0, ANALYSED_GROUPS);
  const largest = [...scored].sort((a, b) => b.group.items.length - a.group.items.length)[0];
  if (largest && !prescored.includes(largest)) prescored.push(largest);

  const analysed = prescored
    .map(({ group, score }) => {
      // Empty spacers between records (no text, no link, no image) say nothing about the records' fields; the
      // extraction leaves them out too (an item whose fields are all empty is dropped).
      const records = group.items.filter(
        (item) => stats.get(item)!.textLength > 0 || stats.get(item)!.links > 0 || selectIn('img', item).length > 0,
      );
      const { fields, hints } = itemFields(records.length >= MIN_ITEMS ? records : group.items);
      const weak = isChrome(group.parent) || isLinkList(fields, group.items, stats);
      // The record's whole text (offered when the fields miss much of it) says nothing about its structure.
      const structured = fields.filter((field) => field.selector !== ':scope' || field.attribute !== undefined).length;
      return { group, fields, hints, weak, structured, score: score * Math.min(structured, 6) * (weak ? 0.1 : 1) };
    })
    // One field is not a record; such items are read as a list of texts when they are just text.
    .map((candidate) => (candidate.structured >= 2 ? candidate : { ...candidate, fields: textListField(candidate.group.items) }))
    .filter(({ fields }) => fields.length > 0)
    .sort((a, b) => b.score - a.score);

  const kept: Array<(typeof analysed)[number] & { selector: string }> = [];
  for (const candidate of analysed) {
    if (kept.length >= KEPT_GROUPS || candidate.score < (kept[0]?.score ?? 0) * 0.1) break;
    // Regions nested in each other describe the same content twice: the better-scored one stays.
    // So do regions sharing items (a spread region and one of its containers' groups).
    if (kept.some((other) => regionsOverlap(candidate.group, other.group))) continue;
    // A region without a selector that picks exactly its items cannot be offered, and must not hide others.
    const selector = regionSelector(candidate.group, context);
    if (selector) kept.push({ ...candidate, selector });
  }

  // The page's largest region (often furniture), when it outnumbers every region kept, is offered last (see
  // Proposal.trailing).
  const largestKept = Math.max(0, ...kept.map((candidate) => candidate.group.items.length));
  const furniture = analysed
    .filter(
      (candidate) =>
        !kept.some((other) => other.group === candidate.group) &&
        candidate.group.items.length >= MIN_TRAILING_ITEMS &&
        candidate.group.items.length > largestKept,
    )
    .sort((a, b) => b.group.items.length - a.group.items.length || b.score - a.score);
  const trailing = new Set<Element[]>();
  for (const candidate of furniture) {
    if (kept.some((other) => regionsShareItems(candidate.group, other.group))) continue;
    const selector = regionSelector(candidate.group, context);
    if (!selector) continue;
    kept.push({ ...candidate, selector });
    trailing.add(candidate.group.items);
    break;
  }

  const proposals: Proposal[] = [];
  const names = new NameSet();
  for (const candidate of kept) {
    const selector = candidate.selector;
    // Two regions named alike (`items`, `products`) are told apart by their headings before a number.
    const preferred = arrayName(candidate.group);
    const heading = names.has(preferred) ? headingName(candidate.group) : null;
    const name = names.take(heading && !names.has(heading) ? heading : preferred);
    const isTextList = candidate.fields.length === 1 && candidate.fields[0]!.name === TEXT_LIST;
    proposals.push({
      kind: 'items',
      field: isTextList
        ? { name, type: 'array', selector, items: { type: 'string' } }
        : { name, type: 'array', selector, fields: candidate.fields },
      score: candidate.score,
      hints: `${name} ${selector} ${candidate.hints}`,
      itemElements: candidate.group.items,
      weak: candidate.weak,
      ...(trailing.has(candidate.group.items) ? { trailing: true } : {}),
    });
  }
  return proposals;
}
