import type { Field } from '../../config/schema.js';
import { allElements, elementChildren, isInside, parentElement, selectIn, stableClasses, textOf, type Element } from './dom.js';
import { itemFields } from './item-fields.js';
import { isUtilityClass, pluralize, splitWords } from './naming.js';
import { groupSelector } from './selectors.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * Repeated item regions: sibling elements sharing a tag and a class (or just a tag), at least three, such as
 * product cards, search results, job or property listings, forum posts. Each becomes an array of objects.
 * Finding candidates is one pass over the section; only the most promising few get the costlier field analysis.
 */

const NOT_ITEMS = new Set(['td', 'th', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'script', 'style', 'meta', 'link', 'br', 'hr', 'source', 'col', 'colgroup', 'head', 'title', 'path', 'g', 'svg', 'input', 'button', 'span', 'img', 'b', 'i', 'em', 'strong', 'small', 'dd', 'dt']);
const CHROME = new Set(['nav', 'header', 'footer', 'aside', 'menu']);
const CHROME_CLASS = /(^|[-_ ])(nav|navbar|menu|breadcrumbs?|pagination|pager|footer|header|sidebar|social|share|tabs?|filters?|facets?|toc|masthead)([-_ ]|$)/i;
const MIN_ITEMS = 3;
const ANALYSED_GROUPS = 12;
const KEPT_GROUPS = 3;

interface Group {
  parent: Element;
  items: Element[];
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

function findGroups(elements: Element[]): Group[] {
  const groups: Group[] = [];
  for (const parent of elements) {
    // Most elements have fewer than three element children: skip them before building anything.
    let elementCount = 0;
    for (const child of parent.children) if (child.type === 'tag' && ++elementCount >= MIN_ITEMS) break;
    if (elementCount < MIN_ITEMS) continue;
    const byTag = new Map<string, Element[]>();
    for (const child of elementChildren(parent)) {
      if (NOT_ITEMS.has(child.name)) continue;
      const list = byTag.get(child.name) ?? [];
      list.push(child);
      byTag.set(child.name, list);
    }
    for (const siblings of byTag.values()) {
      if (siblings.length < MIN_ITEMS) continue;
      const classCounts = new Map<string, number>();
      for (const sibling of siblings) for (const cls of stableClasses(sibling)) classCounts.set(cls, (classCounts.get(cls) ?? 0) + 1);
      const [bestClass, bestCount] = [...classCounts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['', 0];
      // Siblings sharing a class are the items, even among other siblings (HN's `tr.athing` between spacer rows).
      const items = bestCount >= MIN_ITEMS ? siblings.filter((sibling) => stableClasses(sibling).includes(bestClass)) : siblings;
      // Rows of a data table (one with header cells) are the table detector's.
      if (items[0]!.name === 'tr' && selectIn('th', parent).length > 0) continue;
      groups.push({ parent, items });
    }
  }
  return groups;
}

function isChrome(element: Element): boolean {
  for (let current: Element | null = element; current; current = parentElement(current)) {
    if (CHROME.has(current.name) || current.attribs.role === 'navigation') return true;
    if (CHROME_CLASS.test(`${current.attribs.class ?? ''} ${current.attribs.id ?? ''}`)) return true;
  }
  return false;
}

/** Menus, tag clouds, "see also" lists: each item one short link and nothing else. */
function isLinkList(fields: Field[], items: Element[], stats: Map<Element, Stats>): boolean {
  const avgText = items.reduce((sum, item) => sum + stats.get(item)!.textLength, 0) / items.length;
  return fields.every((field) => field.type === 'url' || field.name === 'title') && fields.length <= 2 && avgText < 40;
}

const TEXT_LIST = '$text';
const INLINE_TEXT = new Set(['b', 'strong', 'em', 'i', 'u', 'small', 'sup', 'sub', 'mark', 'abbr', 'code', 'br', 'span', 'p']);

/** Items that are plain text (ingredients, bullet points) make an array of strings. */
function textListField(items: Element[]): Field[] {
  const texts = items.map(textOf);
  // Microdata properties are read by the microdata detector; here only plain formatted text counts.
  const plain = items.every((item) => item.attribs.itemprop === undefined && elementChildren(item).every((child) => INLINE_TEXT.has(child.name) && child.attribs.itemprop === undefined));
  return plain && texts.every((text) => text.length > 0) && new Set(texts).size > 1 ? [{ name: TEXT_LIST, type: 'string', selector: ':scope' }] : [];
}

const GENERIC_WORDS = new Set(['container', 'wrapper', 'wrap', 'grid', 'row', 'rows', 'col', 'cols', 'list', 'lists', 'inner', 'outer', 'clearfix', 'section', 'content', 'main', 'items', 'item', 'card', 'cards', 'box', 'block', 'tile', 'pod', 'entry', 'entries', 'body', 'group', 'page', 'layout', 'flex', 'unstyled', 'plain', 'view', 'area', 'panel', 'ol', 'ul', 'li', 'div', 'lg', 'md', 'sm', 'xs', 'col', 'span', 'mt', 'mb', 'p', 'd', 'js', 'u', 'is', 'has', 'the', 'of', 'all', 'latest', 'recent', 'new', 'featured', 'search', 'relative', 'absolute', 'static', 'hidden', 'visible', 'col', 'xs', 'sm', 'md', 'lg', 'xl', 'pull', 'clearfix', 'default', 'active', 'first', 'last', 'odd', 'even', 'type', 'status', 'publish']);

/** `products`, `results`, `jobs`: from the item's classes, then the container's id and classes. */
function arrayName(group: Group): string {
  const first = group.items[0]!;
  // A wrapper item (`li` around `article.product_pod`) is named by what it wraps.
  const children = elementChildren(first);
  const wrapped = children.length === 1 ? stableClasses(children[0]!) : [];
  const sources = [...stableClasses(first), ...wrapped, group.parent.attribs.id ?? '', ...stableClasses(group.parent)].filter((cls) => !isUtilityClass(cls));
  for (const source of sources) {
    const word = splitWords(source).find((candidate) => !GENERIC_WORDS.has(candidate) && /^[a-z]{3,20}$/.test(candidate));
    if (word) return pluralize(word);
  }
  return 'items';
}

export function detectRepeatedItems(context: DetectContext): Proposal[] {
  const elements = allElements(context.sectionRoots);
  const stats = subtreeStats(elements);
  const prescored = findGroups(elements)
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
    .sort((a, b) => b.score - a.score)
    .slice(0, ANALYSED_GROUPS);

  const analysed = prescored
    .map(({ group, score }) => {
      const { fields, hints } = itemFields(group.items);
      const weak = isChrome(group.parent) || isLinkList(fields, group.items, stats);
      return { group, fields, hints, weak, score: score * Math.min(fields.length, 6) * (weak ? 0.1 : 1) };
    })
    // One field is not a record; such items are read as a list of texts when they are just text.
    .map((candidate) => (candidate.fields.length >= 2 ? candidate : { ...candidate, fields: textListField(candidate.group.items) }))
    .filter(({ fields }) => fields.length > 0)
    .sort((a, b) => b.score - a.score);

  const kept: typeof analysed = [];
  for (const candidate of analysed) {
    if (kept.length >= KEPT_GROUPS || candidate.score < (kept[0]?.score ?? 0) * 0.1) break;
    // Regions nested in each other describe the same content twice: the better-scored one stays.
    const overlaps = kept.some(
      (other) =>
        other.group.items.some((item) => item === candidate.group.parent || isInside(candidate.group.parent, item)) ||
        candidate.group.items.some((item) => item === other.group.parent || isInside(other.group.parent, item)),
    );
    if (!overlaps) kept.push(candidate);
  }

  const proposals: Proposal[] = [];
  for (const candidate of kept) {
    const selector = groupSelector(candidate.group.items, context.sectionRoots);
    if (!selector) continue;
    const name = arrayName(candidate.group);
    const isTextList = candidate.fields.length === 1 && candidate.fields[0]!.name === TEXT_LIST;
    proposals.push({
      kind: 'items',
      field: isTextList ? { name, type: 'array', selector, items: { type: 'string' } } : { name, type: 'array', selector, fields: candidate.fields },
      score: candidate.score,
      hints: `${name} ${selector} ${candidate.hints}`,
      itemElements: candidate.group.items,
      weak: candidate.weak,
    });
  }
  return proposals;
}
