import type { Field } from '../../config/index.js';
import { elementChildren, parentElement, textOf, type Element } from '../../extract/index.js';
import type { Group, Stats } from './item-groups.js';

/** What kind of region a group is: page furniture, a list of plain texts, or records; and how much it holds. */

const CHROME = new Set(['nav', 'header', 'footer', 'aside', 'menu']);
const CHROME_CLASS =
  /(^|[-_ ])(nav|navbar|navbox|menu|breadcrumbs?|pagination|pager|footer|header|sidebar|social|share|tabs?|filters?|facets?|toc|masthead|references|reflist|citations?|footnotes|see-?also)([-_ ]|$)/i;

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

export function isChrome(element: Element): boolean {
  for (let current: Element | null = element; current; current = parentElement(current)) {
    if (CHROME.has(current.name) || current.attribs.role === 'navigation') return true;
    if (chromeNames(current).some((name) => CHROME_CLASS.test(name))) return true;
  }
  return false;
}

/** Menus, tag clouds, "see also" lists: each item one short link and nothing else. */
export function isLinkList(fields: Field[], items: Element[], stats: Map<Element, Stats>): boolean {
  const avgText = items.reduce((sum, item) => sum + stats.get(item)!.textLength, 0) / items.length;
  const avgLinks = items.reduce((sum, item) => sum + stats.get(item)!.links, 0) / items.length;
  // Icon and letter grids: rows of links of a character or two each (an alphabet, flags, social icons).
  if (avgLinks >= 2 && avgText / avgLinks < 4) return true;
  return fields.every((field) => field.type === 'url' || field.name === 'title') && fields.length <= 2 && avgText < 40;
}

export const TEXT_LIST = '$text';
const INLINE_TEXT = new Set(['b', 'strong', 'em', 'i', 'u', 'small', 'sup', 'sub', 'mark', 'abbr', 'code', 'br', 'span', 'p']);

/** Items that are plain text (ingredients, bullet points) make an array of strings. */
export function textListField(items: Element[]): Field[] {
  // Microdata properties are read by the microdata detector; here only plain formatted text counts (checked
  // first: the text of thousands of table rows is not read to learn that they hold cells).
  const plain = items.every(
    (item) =>
      item.attribs.itemprop === undefined &&
      elementChildren(item).every((child) => INLINE_TEXT.has(child.name) && child.attribs.itemprop === undefined),
  );
  if (!plain) return [];
  const texts = items.map(textOf);
  return texts.every((text) => text.length > 0) && new Set(texts).size > 1 ? [{ name: TEXT_LIST, type: 'string', selector: ':scope' }] : [];
}

/** Each group with a score from its items' size, text and links (chrome and link lists weigh less), best first. */
export function scoreGroups(groups: Group[], stats: Map<Element, Stats>): Array<{ group: Group; score: number }> {
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

/** Below this many characters per item on average, items are a short link or label each (a menu, an index). */
const THIN_ITEM_TEXT = 30;

/** The characters of text all the items hold. */
export function regionText(group: Group, stats: Map<Element, Stats>): number {
  return group.items.reduce((sum, item) => sum + stats.get(item)!.textLength, 0);
}

/**
 * The main list is the one holding most of the page's content, not the longest: a long list of short links or
 * labels (a category index, a menu outside `nav`) comes after a list of records holding more text in all.
 * Returns each region's score for ordering, the thin ones put just below the richer region.
 */
export function mainFirstScores(regions: Array<{ group: Group; score: number }>, stats: Map<Element, Stats>): number[] {
  const thin = (group: Group) => regionText(group, stats) < group.items.length * THIN_ITEM_TEXT;
  return regions.map(({ group, score }) => {
    if (!thin(group)) return score;
    const richer = regions.filter((other) => !thin(other.group) && regionText(other.group, stats) > regionText(group, stats));
    return richer.length === 0 ? score : Math.min(score, ...richer.map((other) => other.score * 0.9));
  });
}
