import type { Field } from '../../config/index.js';
import {
  attr,
  classesOf,
  cssModulePrefix,
  elementChildren,
  ownText,
  parentElement,
  stableClasses,
  textOf,
  type Element,
} from '../../extract/index.js';
import type { NameSet } from './naming.js';

/**
 * The slots of a repeated region: elements at the same tag/class path inside every item, grouped, with the
 * role each plays for a reader (a link, an image, a date, a text), and what naming the next slot depends on.
 */

export const IGNORED = new Set([
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

export const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

export interface Slot {
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
export function collectSlots(items: Element[]): Slot[] {
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

export type Role = 'link' | 'image' | 'text' | 'time';

export function roleOf(element: Element): Role | null {
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

export function imageAttribute(element: Element): string | null {
  const src = attr(element, 'src');
  for (const lazy of ['data-src', 'data-lazy-src', 'data-original'])
    if (attr(element, lazy) && (!src || src.startsWith('data:'))) return lazy;
  return src && !src.startsWith('data:') ? 'src' : null;
}

/** The fields found so far, and what the next slot's naming depends on. */
export interface Found {
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

/** A slot read for its text: a link or a text block, with its selector found. */
export interface Readable {
  slot: Slot;
  first: Element;
  role: 'link' | 'text';
  selector: string;
  classNamed: string | null;
  hint: string;
}

/** Per item, what `read` gives for the slot's first element there ('' where the item lacks it). */
export function valuesOf(items: Element[], slot: Slot, read: (element: Element) => string): string[] {
  return items.map((item) => (slot.byItem.get(item)?.[0] ? read(slot.byItem.get(item)![0]!) : ''));
}

export function constantsOf(items: Element[], slots: Slot[]): Set<Element> {
  const constants = new Set<Element>();
  for (const slot of slots) {
    const values = valuesOf(items, slot, (element) => textOf(element));
    if (items.length >= 3 && values.every((value) => value !== '' && value === values[0]))
      for (const list of slot.byItem.values()) constants.add(list[0]!);
  }
  return constants;
}
