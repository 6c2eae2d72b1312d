import type { AnyNode } from 'domhandler';
import type { Field } from '../../config/index.js';
import {
  attr,
  classesOf,
  cssModulePrefix,
  elementChildren,
  isElement,
  isStableClass,
  isUnreadElement,
  ownText,
  parentElement,
  parseLocaleNumber,
  relativeCandidates,
  relativeSelector,
  relativeSelectorAll,
  sampleOf,
  selectIn,
  stableClasses,
  textOf,
  type Element,
} from '../../extract/index.js';
import { isKnownFieldWord, looksLikeDate, looksLikePrice, NameSet, nameFromClasses, nameFromContent, nameFromText } from './naming.js';

/**
 * The fields of a repeated region. Elements at the same tag/class path inside every item form a "slot";
 * a slot present in at least half of the items becomes a field: text blocks as strings (prices as numbers),
 * links as text + absolute URL, images as their absolute source. Selectors are relative to the item.
 */

const IGNORED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'path',
  'button',
  'input',
  'select',
  'option',
  'form',
  'iframe',
  'br',
  'hr',
  'source',
  'picture',
]);
const INLINE = new Set(['b', 'strong', 'em', 'i', 'u', 'small', 'sup', 'sub', 'mark', 'abbr', 'code']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

interface Slot {
  key: string;
  /** Per item: the elements at this path (usually one). */
  byItem: Map<Element, Element[]>;
}

function stepKey(element: Element): string {
  const cls =
    stableClasses(element)[0] ??
    classesOf(element)
      .map(cssModulePrefix)
      .find((prefix) => prefix !== null);
  return cls ? `${element.name}.${cls}` : element.name;
}

/** Groups every element of every item by its tag/class path from the item. */
function collectSlots(items: Element[]): Slot[] {
  const slots = new Map<string, Slot>();
  for (const item of items) {
    const stack: Array<{ element: Element; key: string }> = elementChildren(item)
      .reverse()
      .map((element) => ({ element, key: stepKey(element) }));
    while (stack.length > 0) {
      const { element, key } = stack.pop()!;
      // Hidden from readers: a visual duplicate (Amazon's price split into whole and fraction beside the real one).
      // Screen-reader text (`visuallyHidden`) stays: it often carries the record's words ("Status: Open").
      if (IGNORED.has(element.name) || element.attribs['aria-hidden'] === 'true') continue;
      const slot = slots.get(key) ?? { key, byItem: new Map() };
      slots.set(key, slot);
      const list = slot.byItem.get(item) ?? [];
      list.push(element);
      slot.byItem.set(item, list);
      const children = elementChildren(element);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ element: children[i]!, key: `${key}>${stepKey(children[i]!)}` });
    }
  }
  return [...slots.values()].flatMap(splitByPosition);
}

/**
 * Links or images at the same path that every item has the same few times (stars and forks counts, both
 * `a.Link`) are different fields, one per position; texts repeated that way stay a list (feature bullets).
 */
function splitByPosition(slot: Slot): Slot[] {
  const lists = [...slot.byItem.values()];
  const count = lists[0]!.length;
  const first = lists[0]![0]!;
  if (count < 2 || count > 4 || !['a', 'img'].includes(first.name) || !lists.every((list) => list.length === count)) return [slot];
  return Array.from({ length: count }, (_, position) => ({
    key: `${slot.key}#${position + 1}`,
    byItem: new Map([...slot.byItem].map(([item, list]) => [item, [list[position]!]])),
  }));
}

type Role = 'link' | 'image' | 'text' | 'time';

function roleOf(element: Element): Role | null {
  if (
    element.name === 'a' &&
    attr(element, 'href') &&
    !attr(element, 'href')!.startsWith('#') &&
    !attr(element, 'href')!.startsWith('javascript:')
  )
    return 'link';
  if (element.name === 'img' && imageAttribute(element)) return 'image';
  if (element.name === 'time' && attr(element, 'datetime')) return 'time';
  if (!ownText(element) || /^[\s·|•,;:/()\-–—]*$/.test(ownText(element))) return null;
  const parent = parentElement(element);
  // Inline formatting inside a text block is part of that block's text, not a field of its own.
  if (INLINE.has(element.name) && parent && ownText(parent)) return null;
  // Part of a link's own text (`<a><span>owner /</span> repo</a>`): the link field reads all of it.
  if (parent && parent.name === 'a' && ownText(parent)) return null;
  return 'text';
}

function imageAttribute(element: Element): string | null {
  const src = attr(element, 'src');
  for (const lazy of ['data-src', 'data-lazy-src', 'data-original'])
    if (attr(element, lazy) && (!src || src.startsWith('data:'))) return lazy;
  return src && !src.startsWith('data:') ? 'src' : null;
}

/**
 * A constant text just before an element (`Location:`) names it; screen-reader text ("Opens in a new window")
 * says how to use the element, not what it is.
 */
function labelOf(element: Element, constants: Set<Element>): string | null {
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

/**
 * A link's `title` attribute is its name when the text is a truncation of it ("A Light in the ...") or when the
 * link wraps a whole card (no text of its own): then its text would be everything in the card.
 */
function readsTitleAttribute(link: Element): boolean {
  const title = attr(link, 'title');
  return Boolean(title) && (ownText(link) === '' || title!.length > textOf(link).length);
}

/** Links whose targets all end in the same word (`…/stargazers`, `…/forks`) are named by it. */
function nameFromHrefs(hrefs: string[]): string | null {
  const last = hrefs.filter(Boolean).map((href) => href.split(/[?#]/)[0]!.replace(/\/+$/, '').split('/').pop() ?? '');
  const word = last[0];
  return word && /^[A-Za-z][A-Za-z-]{2,20}$/.test(word) && last.every((segment) => segment === word) ? nameFromText(word) : null;
}

/** A constant first child whose text opens the element's text: `<div><span>Venue:</span> Town Hall</div>`. */
function leadingLabel(element: Element, constants: Set<Element>): string | null {
  const firstChild = elementChildren(element)[0];
  if (!firstChild || !constants.has(firstChild)) return null;
  const label = textOf(firstChild);
  const text = textOf(element);
  return label.length > 0 && text.startsWith(label) && text.length > label.length ? label : null;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isInHeading(element: Element, item: Element): boolean {
  for (let current: Element | null = element; current && current !== item; current = parentElement(current))
    if (HEADINGS.has(current.name)) return true;
  return elementChildren(element).some((child) => HEADINGS.has(child.name));
}

function slotLooksPriced(slot: Slot): boolean {
  const texts = [...slot.byItem.values()].map((list) => textOf(list[0]!));
  return texts.filter(looksLikePrice).length * 2 > texts.length;
}

/**
 * On sale, shops show the old price struck out (`<del>`, `<s>`) before the current one: for prices, try
 * first the same selectors restricted to elements outside struck-out text, so sale items yield what they cost.
 */
function withoutStruckOut(candidates: string[], items: Element[], priced: boolean): string[] {
  if (!priced || !items.some((item) => selectIn('del, s, strike', item).length > 0)) return candidates;
  return [...candidates.map((candidate) => `${candidate}:not(del *):not(s *):not(strike *)`), ...candidates];
}

export interface ItemFields {
  fields: Field[];
  /** Sample text of the fields, for matching the rule's keywords. */
  hints: string;
}

/** Slots of a long list are found on an evenly spread sample; the structure engine then checks every item. */
const ANALYSED_ITEMS = 200;

export function itemFields(allItems: Element[]): ItemFields {
  const items = sampleOf(allItems, ANALYSED_ITEMS);
  const names = new NameSet();
  const slots = collectSlots(items).filter((slot) => slot.byItem.size * 2 >= items.length);
  const found: Found = {
    items,
    names,
    fields: [],
    hints: [],
    seenValues: new Set(),
    constants: constantsOf(items, slots),
    hasTitle: false,
    covered: items.map(() => []),
  };
  // Cards that are links themselves (`a.story-card`): the item's own href is the item's URL.
  if (items.every((item) => item.name === 'a' && attr(item, 'href'))) {
    found.fields.push({ name: names.take('url'), type: 'url', selector: ':scope', attribute: 'href', transform: ['absoluteUrl'] });
    found.hints.push('url link');
  }
  for (const slot of slots) slotFields(found, slot);
  if (found.fields.length >= 1 && coverage(found) < MIN_COVERAGE) {
    // The fields leave much of what a reader sees in the record out (a description in bare text, prices
    // between labels): the record's whole text is offered too, so its words are in its item.
    found.fields.push({ name: names.take(names.has('text') ? 'fullText' : 'text'), type: 'string', selector: ':scope' });
    found.hints.push('text');
  }
  return { fields: found.fields, hints: found.hints.join(' ') };
}

/** Below this share of an item's words in its fields, the item's whole text is offered as well. */
const MIN_COVERAGE = 0.7;

const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 2);

/** The words of every text node under the element (`<a>repo 1</a><a>100</a>` is `repo`, `100`, not `repo 1100`). */
function wordsOfElement(element: Element): string[] {
  const words: string[] = [];
  const stack: AnyNode[] = [element];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text') words.push(...wordsOf((node as unknown as { data: string }).data));
    else if ('children' in node && !(node !== element && isElement(node) && (IGNORED.has(node.name) || isUnreadElement(node))))
      stack.push(...(node as Element).children);
  }
  return words;
}

/** The mean share of each item's words that its fields' values hold; words every item has ("Add to cart") aside. */
function coverage(found: Found): number {
  const perItem = found.items.map(wordsOfElement);
  const everywhere = new Set((perItem[0] ?? []).filter((word) => perItem.every((words) => words.includes(word))));
  const shares = found.items.map((item, index) => {
    const all = perItem[index]!.filter((word) => found.items.length < 3 || !everywhere.has(word));
    if (all.length === 0) return 1;
    const have = new Set(wordsOf((found.covered[index] ?? []).join(' ')));
    return all.filter((word) => have.has(word)).length / all.length;
  });
  return shares.reduce((sum, share) => sum + share, 0) / Math.max(1, shares.length);
}

/** The fields found so far, and what the next slot's naming depends on. */
interface Found {
  readonly items: Element[];
  readonly names: NameSet;
  readonly fields: Field[];
  readonly hints: string[];
  /** Signatures of the values of the fields added, so the same values twice make one field. */
  readonly seenValues: Set<string>;
  /** Elements whose text is the same in every item (labels such as `Location:`): never fields themselves. */
  readonly constants: Set<Element>;
  hasTitle: boolean;
  /** Per item (by index), the values its fields read, to tell how much of the record they cover. */
  readonly covered: string[][];
}

/** Per item, what `read` gives for the slot's first element there ('' where the item lacks it). */
function valuesOf(items: Element[], slot: Slot, read: (element: Element) => string): string[] {
  return items.map((item) => (slot.byItem.get(item)?.[0] ? read(slot.byItem.get(item)![0]!) : ''));
}

function constantsOf(items: Element[], slots: Slot[]): Set<Element> {
  const constants = new Set<Element>();
  for (const slot of slots) {
    const values = valuesOf(items, slot, (element) => textOf(element));
    if (items.length >= 3 && values.every((value) => value !== '' && value === values[0]))
      for (const list of slot.byItem.values()) constants.add(list[0]!);
  }
  return constants;
}

function addField(found: Found, field: Field, values: string[], hint: string): void {
  // The same values twice (a card link's title attribute and the card's title text) are one field.
  const signature = `${field.type}|${values.join('\u0000')}`;
  if (found.seenValues.has(signature)) return;
  found.seenValues.add(signature);
  if (field.name === 'title') found.hasTitle = true;
  found.fields.push(field);
  // What the item will carry: a number field holds the number, not the text it was read from.
  values.forEach((value, index) => found.covered[index]?.push(field.type === 'number' ? String(parseLocaleNumber(value) ?? '') : value));
  found.hints.push(field.name, hint, values.slice(0, 3).join(' '));
}

/** The field (or fields) one slot yields, if any. */
function slotFields(found: Found, slot: Slot): void {
  const { items, names } = found;
  const first = [...slot.byItem.values()][0]![0]!;
  const role = roleOf(first);
  if (!role || found.constants.has(first)) return;
  const multiple = [...slot.byItem.values()].reduce((sum, list) => sum + list.length, 0) / slot.byItem.size > 1.3;
  const hint = `${stableClasses(first).join(' ')} ${attr(first, 'itemprop') ?? ''}`;
  if (multiple) {
    if (role === 'text') listField(found, slot, first, hint);
    return;
  }
  const occurrences = items.map((item) => ({ item, element: slot.byItem.get(item)?.[0] ?? null }));
  const candidates = relativeCandidates(first, [...slot.byItem.keys()][0]!);
  const selector = relativeSelector(occurrences, withoutStruckOut(candidates, items, role === 'text' && slotLooksPriced(slot)));
  if (!selector) return;
  const fromClasses = nameFromClasses(classesOf(first).filter((cls) => isStableClass(cls) || cssModulePrefix(cls)));
  // `a.Link` says it is a link, which the url field says already: no name for its text.
  const classNamed = attr(first, 'itemprop') ?? (role === 'link' && fromClasses === 'url' ? null : fromClasses);
  if (role === 'image') {
    const attribute = imageAttribute(first)!;
    addField(
      found,
      { name: names.take('image'), type: 'url', selector, attribute, transform: ['absoluteUrl'] },
      valuesOf(items, slot, (e) => attr(e, attribute) ?? ''),
      hint,
    );
    return;
  }
  if (role === 'time') {
    addField(
      found,
      { name: names.take(classNamed ?? 'date'), type: 'string', selector, attribute: 'datetime' },
      valuesOf(items, slot, (e) => attr(e, 'datetime') ?? ''),
      hint,
    );
    return;
  }
  readableFields(found, { slot, first, role, selector, classNamed, hint });
}

/** A text repeated within each item (feature bullets, tags): one array of strings. */
function listField(found: Found, slot: Slot, first: Element, hint: string): void {
  const { items } = found;
  const selector = relativeSelectorAll(
    items.filter((item) => slot.byItem.has(item)).map((item) => ({ item, elements: slot.byItem.get(item)! })),
    relativeCandidates(first, [...slot.byItem.keys()][0]!),
  );
  if (!selector) return;
  const parent = parentElement(first);
  const name = found.names.take(
    nameFromClasses(stableClasses(first)) ?? (parent ? nameFromClasses(stableClasses(parent)) : null) ?? 'tags',
  );
  addField(
    found,
    { name, type: 'array', selector, items: { type: 'string' } },
    items.map((item) => (slot.byItem.get(item) ?? []).map(textOf).join('|')),
    hint,
  );
}

/** A slot read for its text: a link or a text block, with its selector found. */
interface Readable {
  slot: Slot;
  first: Element;
  role: 'link' | 'text';
  selector: string;
  classNamed: string | null;
  hint: string;
}

function readableFields(found: Found, readable: Readable): void {
  const { slot, first, role, selector, hint } = readable;
  const { items, names } = found;
  const inlineLabel = role === 'text' ? leadingLabel(first, found.constants) : null;
  const texts = valuesOf(items, slot, (element) => {
    if (role === 'link' && readsTitleAttribute(element)) return attr(element, 'title')!;
    const text = textOf(element);
    return inlineLabel && text.startsWith(inlineLabel) ? text.slice(inlineLabel.length).trim() : text;
  });
  const filled = texts.filter((text) => text.length > 0);
  const varying = new Set(filled).size > 1 || items.length < 3;
  // Only a column of prices is a number: "Free" among "$25" and "$40" would come out null.
  const priced = filled.length > 0 && filled.every(looksLikePrice);
  let name = readableName(found, readable, { label: inlineLabel ?? labelOf(first, found.constants), filled, priced });
  if (name === 'title' && found.hasTitle) name = 'subtitle';
  name = secondName(found, readable, name, filled);
  if (role === 'link') {
    linkFields(found, readable, name, { texts, filled, varying });
    return;
  }
  if (!varying) return;
  // A label inside the element ("Venue: Town Hall") is cut off, optionally, so a changed label still reads.
  const labelTransform = inlineLabel ? [`regex:^(?:${escapeRegex(inlineLabel)})?\\s*(.+)$`] : [];
  const field: Field = priced
    ? { name: names.take(name), type: 'number', selector, transform: [...labelTransform, 'number'] }
    : { name: names.take(name), type: 'string', selector, ...(labelTransform.length > 0 ? { transform: labelTransform } : {}) };
  addField(found, field, texts, hint);
}

const OLD_PRICE_CLASS = /(^|[-_\s])(old|was|before|regular|original|strike|crossed|compare|list|rrp|uvp)([-_\s]|price|$)/i;

/**
 * A name already taken in the item names a second field by what tells it apart, before any number: a second
 * price that is struck out or called old is `oldPrice`; a second text is a `label` when short, a `description`
 * when long.
 */
function secondName(found: Found, { first, role }: Readable, name: string, filled: string[]): string {
  if (!found.names.has(name)) return name;
  if (name === 'price') {
    const struck = (element: Element | null): boolean =>
      element !== null && (['del', 's', 'strike'].includes(element.name) || OLD_PRICE_CLASS.test(element.attribs.class ?? ''));
    if (struck(first) || struck(parentElement(first))) return 'oldPrice';
  }
  if (role !== 'text' || !['text', 'subtitle', 'label', 'description'].includes(name)) return name;
  const average = filled.reduce((sum, text) => sum + text.length, 0) / Math.max(1, filled.length);
  const byLength = average > 60 ? 'description' : average <= 25 ? 'label' : 'subtitle';
  return found.names.has(byLength) ? name : byLength;
}

/** The name of a link or text field, from the strongest sign to the weakest. */
function readableName(
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
    (first.name === 'p' ? 'description' : first.name === 'time' || seen.filled.every(looksLikeDate) ? 'date' : 'text')
  );
}

/** A link: its text (when it says something) and its absolute URL. */
function linkFields(
  found: Found,
  { slot, first, selector, hint }: Readable,
  name: string,
  read: { texts: string[]; filled: string[]; varying: boolean },
): void {
  const { names } = found;
  const ownTextUseful = read.varying && read.filled.length > 0 && (ownText(first) !== '' || attr(first, 'title'));
  if (ownTextUseful) {
    const attribute = readsTitleAttribute(first) ? 'title' : undefined;
    addField(found, { name: names.take(name), type: 'string', selector, ...(attribute ? { attribute } : {}) }, read.texts, hint);
  }
  const base = ownTextUseful && name !== 'title' ? `${name}Url` : name === 'title' || !ownTextUseful ? 'url' : `${name}Url`;
  addField(
    found,
    { name: names.take(base), type: 'url', selector, attribute: 'href', transform: ['absoluteUrl'] },
    valuesOf(found.items, slot, (e) => attr(e, 'href') ?? ''),
    hint,
  );
}
