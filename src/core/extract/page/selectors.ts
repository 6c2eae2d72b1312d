import type { AnyNode } from 'domhandler';
import {
  classesOf,
  countOfType,
  cssModulePrefix,
  parentElement,
  positionOfType,
  quoteAttributeValue,
  selectIn,
  stableClasses,
  type Element,
} from './dom.js';

/**
 * Selectors that survive small page changes: an id or hand-written class where one picks out exactly the
 * element, structure (`:nth-of-type`) only where nothing else does. Every candidate is tested against the
 * same roots the structure engine will search at retrieval.
 */

function escapeIdentifier(value: string): string {
  return value.replace(/([^A-Za-z0-9_-])/g, '\\$1');
}

export function classSelector(tag: string, classes: string[]): string {
  return `${tag}${classes.map((cls) => `.${escapeIdentifier(cls)}`).join('')}`;
}

function moduleClassPrefixes(element: Element): string[] {
  return classesOf(element)
    .map(cssModulePrefix)
    .filter((prefix): prefix is string => prefix !== null);
}

function selectsExactly(selector: string, roots: AnyNode | AnyNode[], expected: Element[]): boolean {
  const found = selectIn(selector, roots);
  if (found.length !== expected.length) return false;
  const wanted = new Set(expected);
  return found.every((element) => wanted.has(element));
}

/** Selectors naming the element by itself (id, classes), most robust first. */
function ownSelectors(element: Element): string[] {
  const candidates: string[] = [];
  const id = element.attribs.id;
  if (id && /^[A-Za-z][A-Za-z0-9_-]{0,40}$/.test(id) && !/\d{3,}/.test(id)) candidates.push(`${element.name}#${escapeIdentifier(id)}`);
  const classes = stableClasses(element);
  for (const cls of classes) candidates.push(classSelector(element.name, [cls]));
  for (const prefix of moduleClassPrefixes(element)) candidates.push(`${element.name}[class*=${quoteAttributeValue(prefix)}]`);
  if (classes.length >= 2) candidates.push(classSelector(element.name, classes.slice(0, 2)));
  return candidates;
}

/** A selector matching exactly this element among the roots; climbs to a unique ancestor when needed. */
export function uniqueSelector(element: Element, roots: AnyNode | AnyNode[], depth = 0): string {
  for (const candidate of [...ownSelectors(element), element.name]) if (selectsExactly(candidate, roots, [element])) return candidate;
  const step = countOfType(element) > 1 ? `${element.name}:nth-of-type(${positionOfType(element)})` : element.name;
  const parent = parentElement(element);
  // A top-level element of a fragment (no <html>/<body>): its position counts among the top level only,
  // so say so, or `table:nth-of-type(1)` also matches the first table of every other parent.
  if (!parent && selectsExactly(`${step}:not(* *)`, roots, [element])) return `${step}:not(* *)`;
  if (!parent || depth > 8) return step;
  // One climb per level (computing the parent's selector once keeps this linear in the depth).
  const parentSelector = uniqueSelector(parent, roots, depth + 1);
  for (const own of ownSelectors(element))
    if (selectsExactly(`${parentSelector} > ${own}`, roots, [element])) return `${parentSelector} > ${own}`;
  return `${parentSelector} > ${step}`;
}

/** A selector matching exactly the given sibling items (a repeated region) among the roots. */
export function groupSelector(items: Element[], roots: AnyNode | AnyNode[]): string | null {
  const first = items[0];
  if (!first) return null;
  const shared = stableClasses(first).filter((cls) => items.every((item) => stableClasses(item).includes(cls)));
  const sharedModules = moduleClassPrefixes(first).filter((prefix) => items.every((item) => moduleClassPrefixes(item).includes(prefix)));
  const candidates: string[] = [];
  for (const cls of shared) candidates.push(classSelector(first.name, [cls]));
  for (const prefix of sharedModules) candidates.push(`${first.name}[class*=${quoteAttributeValue(prefix)}]`);
  const parent = parentElement(first);
  if (parent) {
    const container = uniqueSelector(parent, roots);
    for (const cls of shared) candidates.push(`${container} > ${classSelector(first.name, [cls])}`);
    candidates.push(`${container} > ${first.name}`);
  }
  for (const candidate of candidates) if (selectsExactly(candidate, roots, items)) return candidate;
  return null;
}

/**
 * Long lists are checked on an evenly spread sample (the structure engine re-extracts every item before
 * anything is offered), which keeps generation linear on pages with thousands of items.
 */
const SAMPLE_SIZE = 60;
export function sampleOf<T>(list: T[], size = SAMPLE_SIZE): T[] {
  if (list.length <= size) return list;
  const step = list.length / size;
  return Array.from({ length: size }, (_, index) => list[Math.floor(index * step)]!);
}

/**
 * A selector relative to each item whose first match inside the item is the slot's element, for every item
 * that has the slot. `slots` pairs each item with its element for this slot (or null where absent).
 */
export function relativeSelector(slots: Array<{ item: Element; element: Element | null }>, candidates: string[]): string | null {
  const sample = sampleOf(slots);
  for (const candidate of candidates) {
    const ok = sample.every(({ item, element }) => {
      // The structure engine's first match may be the item itself (css-select tests the scope element too).
      const first = selectIn(candidate, item)[0];
      return element ? first === element : true;
    });
    if (ok) return candidate;
  }
  return null;
}

/** Like relativeSelector, for a slot that occurs several times per item: all matches must be its elements. */
export function relativeSelectorAll(slots: Array<{ item: Element; elements: Element[] }>, candidates: string[]): string | null {
  const sample = sampleOf(slots);
  for (const candidate of candidates) {
    const ok = sample.every(({ item, elements }) => selectsExactly(candidate, item, elements));
    if (ok) return candidate;
  }
  return null;
}

/** Candidate relative selectors for an element inside an item, most robust first. */
export function relativeCandidates(element: Element, item: Element): string[] {
  const candidates: string[] = [];
  const itemprop = element.attribs.itemprop?.trim();
  if (itemprop && /^[A-Za-z][A-Za-z0-9]*$/.test(itemprop)) candidates.push(`[itemprop=${quoteAttributeValue(itemprop)}]`);
  const classes = stableClasses(element);
  for (const cls of [...classes].reverse()) candidates.push(`.${escapeIdentifier(cls)}`, classSelector(element.name, [cls]));
  for (const prefix of moduleClassPrefixes(element)) candidates.push(`[class*=${quoteAttributeValue(prefix)}]`);
  const parent = parentElement(element);
  if (parent && parent !== item) {
    const parentClasses = stableClasses(parent);
    for (const cls of parentClasses) candidates.push(`${classSelector(parent.name, [cls])} ${element.name}`);
    candidates.push(`${parent.name} > ${element.name}`);
  }
  candidates.push(element.name);
  // Structural path from the item down, the last resort.
  const steps: string[] = [];
  for (let current: Element | null = element; current && current !== item; current = parentElement(current))
    steps.unshift(countOfType(current) > 1 ? `${current.name}:nth-of-type(${positionOfType(current)})` : current.name);
  candidates.push(steps.join(' > '));
  return candidates;
}
