import { camelCase, isReadableName, isReadableWord, isUtilityClass, pluralize, splitWords } from './naming.js';
import { elementChildren, parentElement, selectIn, stableClasses, textOf, type Element } from '../../extract/index.js';
import type { Group } from './item-groups.js';

/** Names of regions: what their items or container are called, else the heading before them. */

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
export function arrayName(group: Group): string {
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

/** What a section header holds beside its heading: a "See all" link, a count. */
const HEADER_EXTRA_TEXT = 40;

/** The heading just before the region (or before one of its ancestors, three up at most): "Related products". */
export function headingName(group: Group): string | null {
  let current: Element | null = group.parent;
  for (let level = 0; current && level < 3; level++, current = parentElement(current)) {
    for (let sibling = current.prev; sibling; sibling = sibling.prev) {
      if (sibling.type !== 'tag') continue;
      const element = sibling as Element;
      const heading = /^h[1-6]$/.test(element.name) ? element : selectIn('h2, h3, h4', element).pop();
      // A heading inside a block before the region names it only when the block is a header (the heading and
      // a "See all" link), not a record of its own (a featured story: its title is that story's, not the list's).
      if (!heading || (heading !== element && textOf(element).length > textOf(heading).length + HEADER_EXTRA_TEXT)) break;
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
