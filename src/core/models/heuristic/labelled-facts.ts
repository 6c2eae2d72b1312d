import type { Field } from '../../config/index.js';
import {
  classesOf,
  elementChildren,
  isInside,
  parentElement,
  quoteAttributeValue,
  selectIn,
  textOf,
  uniqueSelector,
  type Element,
} from '../../extract/index.js';
import { camelCase, NameSet, splitWords } from './naming.js';
import { isProductFactLabel } from './product-facts.js';
import { rawTextLengths } from './other-prices.js';
import { isChrome } from './region-kinds.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * The facts a detail page states about its main entity, in the markup pages use for them besides `dl` and
 * label/value tables (key-values.ts): an `li`, `p` or `div` holding a label element and its value
 * (`<li><strong>Publisher</strong>: Harbour House</li>`), a "Label: value" line, the "by …" line and the
 * subtitle under the heading. Each becomes a field named from its label, selected by its label (never by its
 * position or its value, which change from one page of the site to the next) and read without the label.
 */

/** Facts sit near the heading; a page's far end is reviews and related products. */
const BEFORE_HEADING = 40;
const AFTER_HEADING = 1500;
const MAX_LABEL = 40;
const MAX_VALUE = 150;
const MAX_FACTS = 30;
/** Raw text (markup whitespace included) of an element that may hold one pair. */
const MAX_RAW = 600;

/** Elements that hold a whole label/value pair. */
const PAIR_TAGS = new Set(['li', 'p', 'div', 'span']);
/** A label element that says it is a label by its weight; others need their colon. */
const STRONG_LABEL = new Set(['strong', 'b', 'label', 'th', 'dt']);
const LABEL_TAGS = new Set([...STRONG_LABEL, 'span', 'em', 'i', 'div', 'p', 'small']);
const BY_LINE = /^by\s+\S/i;
const SUBTITLE_NAMES = /(^|[-_\s])(sub-?title|sub-?heading|subhead|tagline|strapline|standfirst|dek)([-_\s]|$)/i;
/**
 * The product object's facts (main-price.ts, product-facts.ts) under other labels: prices (a labelled price is
 * one of several), stock, brand and codes are read there, once, with their own transforms.
 */
const PRODUCT_LABEL = /price|preis|prix|precio|prezzo|preço|prijs|cena|цена|価格|kosten|cost|stock|avail|brand|manufacturer|sku/i;

interface Pair {
  element: Element;
  label: string;
  /** The label as the element's text starts with it, to cut off in the transform. */
  labelText: string;
  /** The label element, or null for a line whose label is its text up to the colon. */
  labelElement: Element | null;
}

function usableLabel(label: string): boolean {
  return (
    label.length > 0 &&
    label.length <= MAX_LABEL &&
    /\p{L}/u.test(label) &&
    label.split(/\s+/).length <= 5 &&
    !/["\\:：]/.test(label) &&
    !/[.!?]$/.test(label)
  );
}

/** The element's first child node that is not blank text. */
function firstNode(element: Element): Element['children'][number] | undefined {
  return element.children.find((child) => child.type !== 'text' || (child as unknown as { data: string }).data.trim() !== '');
}

/** `<li><strong>Publisher</strong>: Harbour House</li>`, `<div><span class="k">Pages</span><span>320</span></div>`. */
function labelElementPair(element: Element, text: string): Pair | null {
  const first = firstNode(element);
  if (!first || first.type !== 'tag') return null;
  const labelElement = first as Element;
  if (!LABEL_TAGS.has(labelElement.name) || elementChildren(labelElement).length > 1) return null;
  const labelText = textOf(labelElement);
  if (!text.startsWith(labelText)) return null;
  const label = labelText.replace(/[\s:：]+$/, '').trim();
  const value = text
    .slice(labelText.length)
    .replace(/^[\s:：–-]+/, '')
    .trim();
  if (!usableLabel(label) || value.length === 0 || value.length > MAX_VALUE || !/[\p{L}\p{N}]/u.test(value)) return null;
  const colon = /[:：]\s*$/.test(labelText) || /^\s*[:：]/.test(text.slice(labelText.length));
  // Two cells of one row (`<div><div>Pages</div><div>320</div></div>`): a label by its place.
  const cells = elementChildren(element).length === 2 && ownTextOf(element) === '';
  if (!colon && !STRONG_LABEL.has(labelElement.name) && !cells) return null;
  return { element, label, labelText, labelElement };
}

/** "Published: 12 March 2021": the label is the text up to the colon, before any child element. */
function linePair(element: Element, text: string): Pair | null {
  const first = firstNode(element);
  if (!first || first.type !== 'text') return null;
  const opening = (first as unknown as { data: string }).data.replace(/\s+/g, ' ').trimStart();
  const match = /^([^:：]{2,40})[:：]/.exec(opening);
  if (!match || elementChildren(element).some((child) => PAIR_TAGS.has(child.name) && child.name !== 'span')) return null;
  const label = match[1]!.trim();
  const value = text.slice(match[0].length).trim();
  if (!usableLabel(label) || value.length === 0 || value.length > MAX_VALUE || /^\/\//.test(value)) return null;
  return { element, label, labelText: label, labelElement: null };
}

function ownTextOf(element: Element): string {
  return element.children
    .filter((child) => child.type === 'text')
    .map((child) => (child as unknown as { data: string }).data)
    .join('')
    .trim();
}

function pairOf(element: Element, rawLength: Map<Element, number>): Pair | null {
  // Raw lengths first: reading the text of every block near the heading would read the page many times over.
  if (!PAIR_TAGS.has(element.name) || (rawLength.get(element) ?? 0) > MAX_RAW || elementChildren(element).length > 4) return null;
  const text = textOf(element);
  if (text.length < 3 || text.length > MAX_LABEL + MAX_VALUE + 5) return null;
  return labelElementPair(element, text) ?? linePair(element, text);
}

/**
 * Inside a record of a repeated region (a related product, a review): one of three or more siblings alike,
 * above the pair itself, that does not hold the page's heading. Sibling counts are computed once per parent.
 */
function createRecordCheck(heading: Element): (element: Element) => boolean {
  const counts = new Map<Element, Map<string, number>>();
  const signature = (element: Element) => `${element.name}.${classesOf(element)[0] ?? ''}`;
  const countOf = (parent: Element, element: Element): number => {
    let byName = counts.get(parent);
    if (!byName) {
      byName = new Map();
      for (const child of elementChildren(parent)) byName.set(signature(child), (byName.get(signature(child)) ?? 0) + 1);
      counts.set(parent, byName);
    }
    return byName.get(signature(element)) ?? 0;
  };
  return (element) => {
    for (let current = parentElement(element); current; current = parentElement(current)) {
      const parent = parentElement(current);
      if (!parent || isInside(heading, current)) return false;
      if (countOf(parent, current) >= 3) return true;
    }
    return false;
  };
}

/** A selector that finds the pair by its label, first on the page: bare, else inside its container. */
function labelSelector(pair: Pair, roots: DetectContext['sectionRoots']): string | null {
  const { element, labelText, labelElement } = pair;
  const quoted = quoteAttributeValue(labelText);
  const own = labelElement
    ? `${element.name}:has(> ${labelElement.name}:contains(${quoted}))`
    : `${element.name}:contains(${quoteAttributeValue(`${labelText}:`)})`;
  if (selectIn(own, roots)[0] === element) return own;
  const parent = parentElement(element);
  const container = parent ? uniqueSelector(parent, roots) : null;
  if (!container || /nth-|:first-|:last-/.test(container)) return null;
  const inside = `${container} > ${own}`;
  return selectIn(inside, roots)[0] === element ? inside : null;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function pairField(pair: Pair, roots: DetectContext['sectionRoots'], names: NameSet): Field | null {
  const name = camelCase(splitWords(pair.label).slice(0, 4));
  if (name.length < 2 || names.has(name)) return null;
  const selector = labelSelector(pair, roots);
  if (!selector) return null;
  return {
    name: names.take(name),
    type: 'string',
    selector,
    transform: [`regex:^\\s*${escapeRegex(pair.labelText)}\\s*[:：]?\\s*(.+)$`],
  };
}

/** The main entity's own lines under its heading: "by Jane Doe" (`author`) and a subtitle. */
function entityLines(elements: Element[], headingIndex: number, roots: DetectContext['sectionRoots']): Field[] {
  const fields: Field[] = [];
  const near = elements.slice(headingIndex + 1, headingIndex + 25);
  const byLine = near.find((element) => {
    const text = textOf(element);
    return text.length <= 100 && BY_LINE.test(text) && !elementChildren(element).some((child) => BY_LINE.test(textOf(child)));
  });
  const bySelector = byLine ? stableSelector(byLine, roots) : null;
  // The name ends where the line goes on to a date or a section ("By Maria Jensen · 21 November 2026").
  if (bySelector)
    fields.push({ name: 'author', type: 'string', selector: bySelector, transform: ['regex:^\\s*[Bb]y\\s+([^·•|]*[^·•|\\s])'] });
  const subtitle = near.slice(0, 8).find((element) => {
    const called = `${element.attribs.class ?? ''} ${element.attribs.id ?? ''}`;
    return SUBTITLE_NAMES.test(called) && textOf(element).length >= 2 && textOf(element).length <= 200;
  });
  const subSelector = subtitle ? stableSelector(subtitle, roots) : null;
  if (subSelector) fields.push({ name: 'subtitle', type: 'string', selector: subSelector });
  return fields;
}

/** A selector by the element's own names, never by its position (optional blocks before it move it). */
function stableSelector(element: Element, roots: DetectContext['sectionRoots']): string | null {
  const selector = uniqueSelector(element, roots);
  return /nth-|:first-|:last-/.test(selector) ? null : selector;
}

export function detectLabelledFacts(context: DetectContext): Proposal[] {
  const elements = context.sectionElements;
  const headingIndex = elements.findIndex((element) => element.name === 'h1' && textOf(element) !== '');
  if (headingIndex < 0) return [];
  const heading = elements[headingIndex]!;
  const inRecord = createRecordCheck(heading);
  const window = elements.slice(Math.max(0, headingIndex - BEFORE_HEADING), headingIndex + AFTER_HEADING);
  const rawLength = rawTextLengths(window);
  const found = window.map((element) => pairOf(element, rawLength)).filter((pair): pair is Pair => pair !== null);
  const holders = pairHolders(found);
  const pairs = found.filter(
    (pair) =>
      !isProductFactLabel(pair.label) &&
      !PRODUCT_LABEL.test(pair.label) &&
      !holders.has(pair.element) &&
      !inRecord(pair.element) &&
      !isChrome(pair.element),
  );
  // A label met three times or more labels records (every review's "Rating:"), not the page's entity.
  const seen = new Map<string, number>();
  for (const pair of pairs) seen.set(pair.label, (seen.get(pair.label) ?? 0) + 1);
  const names = new NameSet();
  const fields = entityLines(elements, headingIndex, context.sectionRoots).map((field) => ({ ...field, name: names.take(field.name) }));
  // Each selector is checked against the page: a page of hundreds of pairs is not checked hundreds of times.
  for (const pair of pairs.filter((pair) => seen.get(pair.label)! < 3).slice(0, MAX_FACTS * 2)) {
    if (fields.length >= MAX_FACTS) break;
    const field = pairField(pair, context.sectionRoots, names);
    if (field) fields.push(field);
  }
  if (fields.length === 0) return [];
  return [
    {
      kind: 'heading',
      field: { name: 'facts', type: 'object', fields },
      score: 0.5,
      hints: `facts ${fields.map((field) => field.name).join(' ')}`,
    },
  ];
}

/** Elements holding other pairs (a block of `p` lines read as one label and value): no pair themselves. */
function pairHolders(pairs: Pair[]): Set<Element> {
  const holders = new Set<Element>();
  for (const pair of pairs)
    for (let current = parentElement(pair.element); current && !holders.has(current); current = parentElement(current))
      holders.add(current);
  return holders;
}
