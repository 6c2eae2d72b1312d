import {
  attr,
  classesOf,
  cssModulePrefix,
  elementChildren,
  isStableClass,
  isUnreadElement,
  ownText,
  parentElement,
  textOf,
  type Element,
} from '../../extract/index.js';
import { isKnownFieldWord, looksLikeDate, nameFromClasses, nameFromContent, nameFromText, nameFromValues, splitWords } from './naming.js';
import { HEADINGS, valuesOf, type Found, type Readable, type Role } from './item-slots.js';

/**
 * Names of a record's fields, from the strongest sign to the weakest: a label beside the value, a known word
 * in its class, what the value is (a price, a date, a count), where it sits (a heading is the title), the
 * class's other words; a second field of one name by what tells it apart (`oldPrice`, `label`), not a number.
 */

/**
 * A constant text just before an element (`Location:`) names it; screen-reader text ("Opens in a new window")
 * says how to use the element, not what it is.
 */
export function labelOf(element: Element, constants: Set<Element>): string | null {
  for (let sibling = element.prev; sibling; sibling = sibling.prev) {
    if (sibling.type === 'text' && (sibling as unknown as { data: string }).data.trim()) break;
    if (sibling.type === 'tag' && isUnreadElement(sibling as Element)) continue;
    if (sibling.type === 'tag') return constants.has(sibling as Element) ? textOf(sibling as Element) : null;
  }
  const parent = parentElement(element);
  if (parent)
    for (const child of elementChildren(parent))
      if (child !== element && constants.has(child) && ownText(parent) === '' && child.next && child.next === element) return textOf(child);
  return null;
}

/** A constant first child whose text opens the element's text: `<div><span>Venue:</span> Town Hall</div>`. */
export function leadingLabel(element: Element, constants: Set<Element>): string | null {
  const firstChild = elementChildren(element)[0];
  if (!firstChild || !constants.has(firstChild)) return null;
  const label = textOf(firstChild);
  const text = textOf(element);
  return label.length > 0 && text.startsWith(label) && text.length > label.length ? label : null;
}

/**
 * A link's `title` attribute is its name when the text is a truncation of it ("A Light in the ...") or when the
 * link wraps a whole card (no text of its own): then its text would be everything in the card.
 */
export function readsTitleAttribute(link: Element): boolean {
  const title = attr(link, 'title');
  return Boolean(title) && (ownText(link) === '' || title!.length > textOf(link).length);
}

/** Links whose targets all end in the same word (`…/stargazers`, `…/forks`) are named by it. */
export function nameFromHrefs(hrefs: string[]): string | null {
  const last = hrefs.filter(Boolean).map((href) => href.split(/[?#]/)[0]!.replace(/\/+$/, '').split('/').pop() ?? '');
  const word = last[0];
  return word && /^[A-Za-z][A-Za-z-]{2,20}$/.test(word) && last.every((segment) => segment === word) ? nameFromText(word) : null;
}

function isInHeading(element: Element, item: Element): boolean {
  for (let current: Element | null = element; current && current !== item; current = parentElement(current))
    if (HEADINGS.has(current.name)) return true;
  return elementChildren(element).some((child) => HEADINGS.has(child.name));
}

/**
 * The name the element's classes give it, or its parent's when it has none (`<sup class="price__disclaimer"><a>`).
 * `a.Link`, `a.offer-link`, `span.parent-link` say "link" (`a.thumb-link`, "image"), which tells nothing
 * of the text: the other words name it.
 */
export function nameFromClassesOf(element: Element, item: Element, role: Role): string | null {
  const usable = (of: Element): string[] => classesOf(of).filter((cls) => isStableClass(cls) || cssModulePrefix(cls));
  const parent = parentElement(element);
  const own = classesOf(element).length > 0 || !parent || parent === item ? usable(element) : usable(parent);
  // The record's own class words (`lamp` in `li.lamp > a.lamp-link`) say what the record is, not the field.
  const recordWords = new Set(classesOf(item).flatMap(splitWords));
  // An image's class says `image`, which its field is called already; on a text it names the element, not the text.
  return nameFromClasses(own, role === 'image' ? ['image'] : ['url', 'image'], recordWords);
}

const OLD_PRICE_CLASS = /(^|[-_\s])(old|was|before|regular|original|strike|crossed|compare|list|rrp|uvp)([-_\s]|price|$)/i;

/** A price called new or current (`item__price--new`, `sale-price`): the one a buyer pays, so the other is old. */
const NEW_PRICE_CLASS = /(^|[-_\s])(new|now|sale|current|special|final|reduced|promo|discounted)([-_\s]|price|$)/i;

/** Struck out, or called old (`price--old`, `was-price`), itself or its parent. */
function isCalledOld(element: Element): boolean {
  const struck = (of: Element | null): boolean =>
    of !== null && (['del', 's', 'strike'].includes(of.name) || OLD_PRICE_CLASS.test(of.attribs.class ?? ''));
  return struck(element) || struck(parentElement(element));
}

/**
 * A name already taken in the item names a second field by what tells it apart, before any number: a price
 * struck out or called old is `oldPrice` (and when the second is called new, the first was the old one); a
 * second text is a `label` or `note` when short, a `description`, `summary` or `details` when long.
 */
export function secondName(found: Found, { first, role }: Readable, name: string, filled: string[]): string {
  if (name === 'price' && !found.names.has('oldPrice') && isCalledOld(first)) return 'oldPrice';
  if (!found.names.has(name)) return name;
  if (name === 'price') {
    const called = (element: Element | null): boolean => element !== null && NEW_PRICE_CLASS.test(element.attribs.class ?? '');
    const earlier = found.fields.find((field) => field.name === 'price');
    if (earlier && !found.names.has('oldPrice') && (called(first) || called(parentElement(first)))) {
      earlier.name = 'oldPrice';
      found.names.rename('price', 'oldPrice');
      return 'price';
    }
  }
  if (role !== 'text' || !['text', 'subtitle', 'label', 'description'].includes(name)) return name;
  const average = filled.reduce((sum, text) => sum + text.length, 0) / Math.max(1, filled.length);
  const byLength = average > 60 ? ['description', 'summary', 'details'] : average <= 25 ? ['label', 'note'] : ['subtitle', 'summary'];
  return byLength.find((candidate) => !found.names.has(candidate)) ?? name;
}

/** The name of a link or text field, from the strongest sign to the weakest. */
export function readableName(
  found: Found,
  { slot, first, role, classNamed }: Readable,
  seen: { label: string | null; filled: string[]; priced: boolean },
): string {
  const { hasTitle } = found;
  const contentName = nameFromContent(seen.filled[0] ?? '');
  return (
    (seen.label ? nameFromText(seen.label) : null) ??
    (classNamed && isKnownFieldWord(classNamed) ? classNamed : null) ??
    (seen.priced ? 'price' : null) ??
    (isInHeading(first, [...slot.byItem.keys()][0]!) && !hasTitle ? 'title' : null) ??
    (role === 'link' && readsTitleAttribute(first) && !hasTitle ? 'title' : null) ??
    contentName ??
    classNamed ??
    (role === 'link' && !hasTitle ? 'title' : null) ??
    (role === 'link' ? nameFromHrefs(valuesOf(found.items, slot, (e) => attr(e, 'href') ?? '')) : null) ??
    (first.name === 'p' ? 'description' : first.name === 'time' || seen.filled.every(looksLikeDate) ? 'date' : null) ??
    nameFromValues(seen.filled) ??
    'text'
  );
}
