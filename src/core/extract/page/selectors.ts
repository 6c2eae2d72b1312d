import type { AnyNode } from 'domhandler';
import {
  classesOf,
  countOfType,
  cssModulePrefix,
  isElement,
  parentElement,
  positionOfType,
  quoteAttributeValue,
  selectIn,
  selectsOnly,
  stableClasses,
  textOf,
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

/**
 * An id a person wrote (`main-menu`, `Major_parks`), not one a framework generated for this build or visit:
 * no run of three digits, and no part mixing letters and digits (`rec-carousel-0i4aq87ohnr`, `ntzguatb5t`,
 * `ember42x`) beyond a short trailing number (`section2`, `h1`).
 */
export function isStableId(id: string, maxLength = 40): boolean {
  if (id.length > maxLength + 1 || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(id) || /\d{3,}/.test(id)) return false;
  return id.split(/[-_]+/).every((part) => !/\d[A-Za-z]|[A-Za-z]\d+[A-Za-z]/.test(part));
}

/** Selectors naming the element by itself (id, classes), most robust first. */
function ownSelectors(element: Element): string[] {
  const candidates: string[] = [];
  const id = element.attribs.id;
  if (id && isStableId(id)) candidates.push(`${element.name}#${escapeIdentifier(id)}`);
  const classes = stableClasses(element);
  for (const cls of classes) candidates.push(classSelector(element.name, [cls]));
  for (const prefix of moduleClassPrefixes(element)) candidates.push(`${element.name}[class*=${quoteAttributeValue(prefix)}]`);
  if (classes.length >= 2) candidates.push(classSelector(element.name, classes.slice(0, 2)));
  return candidates;
}

/** A short text usable inside `:contains("…")`: one line, no quotes or backslashes. */
function containsText(text: string): string | null {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length >= 2 && clean.length <= 60 && !/["\\]/.test(clean) ? clean : null;
}

/**
 * Selectors naming the element by what stands before it or what it holds, for elements without an id or
 * class of their own: the heading just before it (`h2:has(#External_links) + ul`, `h3:contains("Results") +
 * table`), the sibling before it by its id, and for a table its header cells (`table:has(th:contains("Year"))`).
 * They survive an element added elsewhere on the page, which a position (`ul:nth-of-type(17)`) does not.
 */
function anchoredSelectors(element: Element): string[] {
  const candidates: string[] = [];
  let previous = element.prev;
  while (previous && previous.type !== 'tag') previous = previous.prev;
  if (previous && isElement(previous)) {
    const id = previous.attribs.id;
    if (id && isStableId(id)) candidates.push(`${previous.name}#${escapeIdentifier(id)} + ${element.name}`);
    if (/^h[1-6]$/.test(previous.name)) {
      const inner = selectIn('[id]', previous).find((child) => isStableId(child.attribs.id ?? '', 60));
      if (inner) candidates.push(`${previous.name}:has(#${escapeIdentifier(inner.attribs.id!)}) + ${element.name}`);
      const text = containsText(textOf(previous));
      if (text) candidates.push(`${previous.name}:contains(${quoteAttributeValue(text)}) + ${element.name}`);
    }
  }
  if (element.name === 'table') {
    const headers = selectIn('th', element)
      .map((cell) => containsText(textOf(cell)))
      .filter((text): text is string => text !== null && !/^\d+$/.test(text))
      .slice(0, 3);
    const base = classSelector('table', stableClasses(element).slice(0, 1));
    for (let count = 1; count <= headers.length; count++)
      candidates.push(
        `${base}${headers
          .slice(0, count)
          .map((text) => `:has(th:contains(${quoteAttributeValue(text)}))`)
          .join('')}`,
      );
  }
  return candidates;
}

/** A selector matching exactly this element among the roots; climbs to a unique ancestor when needed. */
export function uniqueSelector(element: Element, roots: AnyNode | AnyNode[], depth = 0): string {
  for (const candidate of [...ownSelectors(element), element.name]) if (selectsOnly(candidate, roots, [element])) return candidate;
  for (const candidate of anchoredSelectors(element)) if (selectsOnly(candidate, roots, [element])) return candidate;
  const step = countOfType(element) > 1 ? `${element.name}:nth-of-type(${positionOfType(element)})` : element.name;
  const parent = parentElement(element);
  // A top-level element of a fragment (no <html>/<body>): its position counts among the top level only,
  // so say so, or `table:nth-of-type(1)` also matches the first table of every other parent.
  if (!parent && selectsOnly(`${step}:not(* *)`, roots, [element])) return `${step}:not(* *)`;
  if (!parent || depth > 8) return step;
  // One climb per level (computing the parent's selector once keeps this linear in the depth).
  const parentSelector = uniqueSelector(parent, roots, depth + 1);
  for (const own of ownSelectors(element))
    if (selectsOnly(`${parentSelector} > ${own}`, roots, [element])) return `${parentSelector} > ${own}`;
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
  for (const candidate of candidates) if (selectsOnly(candidate, roots, items)) return candidate;
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
    const ok = sample.every(({ item, elements }) => selectsOnly(candidate, item, elements));
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
