import type { AnyNode } from 'domhandler';
import type { Field } from '../../config/index.js';
import {
  attr,
  isElement,
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
import { looksLikePrice, NameSet, nameFromClasses, pluralize } from './naming.js';
import { labelOf, leadingLabel, nameFromClassesOf, nameFromHrefs, readableName, readsTitleAttribute, secondName } from './item-names.js';
import {
  collectSlots,
  constantsOf,
  IGNORED,
  imageAttribute,
  roleOf,
  valuesOf,
  type Found,
  type Readable,
  type Slot,
} from './item-slots.js';

/**
 * The fields of a repeated region. Elements at the same tag/class path inside every item form a "slot";
 * a slot present in at least half of the items becomes a field: text blocks as strings (prices as numbers),
 * links as text + absolute URL, images as their absolute source. Selectors are relative to the item.
 */

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
  const classNamed = attr(first, 'itemprop') ?? nameFromClassesOf(first, [...slot.byItem.keys()][0]!, role);
  if (role === 'image') {
    const attribute = imageSource(items, slot, imageAttribute(first)!);
    if (!attribute) return;
    // A second image is named by its class (`hoverImage`), not `image2`.
    const name = names.has('image') && classNamed && classNamed !== 'image' ? `${classNamed}Image` : 'image';
    addField(
      found,
      { name: names.take(name), type: 'url', selector, attribute, transform: ['absoluteUrl'] },
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

/**
 * The attribute holding each record's own image. The same source in every record is a placeholder (a lazy
 * loader's grey square, a default picture) or decoration: the lazy attribute then, else no image at all.
 */
function imageSource(items: Element[], slot: Slot, attribute: string): string | null {
  const varies = (name: string): boolean => items.length < 3 || new Set(valuesOf(items, slot, (e) => attr(e, name) ?? '')).size > 1;
  if (varies(attribute)) return attribute;
  return ['data-src', 'data-lazy-src', 'data-original'].find(varies) ?? null;
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
  // A second list in the record is named by what its classes say in the plural (`headings`), else `details`.
  const named = nameFromClasses(stableClasses(first)) ?? (parent ? nameFromClasses(stableClasses(parent)) : null);
  const candidates = [named, named ? pluralize(named) : null, 'tags', 'details'].filter((name): name is string => name !== null);
  const name = found.names.take(candidates.find((candidate) => !found.names.has(candidate)) ?? candidates[0]!);
  addField(
    found,
    { name, type: 'array', selector, items: { type: 'string' } },
    items.map((item) => (slot.byItem.get(item) ?? []).map(textOf).join('|')),
    hint,
  );
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
  // A second link is named by what it is (`imageUrl`, `reviewsUrl` from its class or where it leads), not `url2`.
  let base = ownTextUseful && name !== 'title' ? `${name}Url` : 'url';
  if (base === 'url' && names.has('url')) {
    const other = ['title', 'text'].includes(name) ? nameFromHrefs(valuesOf(found.items, slot, (e) => attr(e, 'href') ?? '')) : name;
    if (other && other !== 'url') base = `${other}Url`;
  }
  addField(
    found,
    { name: names.take(base), type: 'url', selector, attribute: 'href', transform: ['absoluteUrl'] },
    valuesOf(found.items, slot, (e) => attr(e, 'href') ?? ''),
    hint,
  );
}
