import type { AnyNode } from 'domhandler';
import type { ApiConfig, Field } from '../config/schema.js';
import { allElements, elementChildren, parentElement, parseHtml, selectIn, stableClasses, textOf, type Element } from '../models/heuristic/dom.js';
import { groupSelector, relativeCandidates, relativeSelector, uniqueSelector } from '../models/heuristic/selectors.js';
import { compileStructure } from '../structure/index.js';
import { parseLocaleNumber } from '../structure/numbers.js';

/**
 * Repair by value anchoring (the `heuristic` model's `heal`): the last good values of an endpoint (its
 * snapshot's data, else its generated sample) are looked for on the new page; the elements holding them give
 * the new item container and each field's new selector, chosen by the same selector rules `generate` uses.
 * Names, types, transforms and order are kept; a field whose values cannot be found keeps its old selector
 * and is named in `unrepaired`, never dropped. The result is verified by extracting it.
 */
export interface HealInput {
  config: Pick<ApiConfig, 'apiId' | 'selector' | 'structure'>;
  html: string;
  pageUrl: string;
  /** The last good data. */
  expected: Record<string, unknown>;
}

export interface HealResult {
  structure: Field[];
  /** Dotted paths whose selector changed. */
  repaired: string[];
  /** Dotted paths whose values were not found on the page (their selector is kept). */
  unrepaired: string[];
  /** Of the last good values (leaves), how many the healed structure extracts again. */
  recovery: { found: number; total: number };
  data: Record<string, unknown>;
}

const norm = (value: unknown) => String(value).replace(/\s+/g, ' ').trim().toLowerCase();
const MAX_TEXT = 300;

interface PageIndex {
  roots: AnyNode[];
  /** Elements with short text, innermost first within a subtree (document order otherwise). */
  texts: Array<{ element: Element; text: string; number: number | null }>;
  elements: Element[];
  pageUrl: string;
}

function indexPage(html: string, selector: string, pageUrl: string): PageIndex {
  const page = parseHtml(html);
  let roots: AnyNode[] = selectIn(selector || 'body', page.children);
  if (roots.length === 0) roots = page.children;
  const elements = allElements(roots);
  const texts = elements
    .filter((element) => !['script', 'style', 'head'].includes(element.name))
    .map((element) => ({ element, text: textOf(element) }))
    .filter(({ text }) => text.length > 0 && text.length <= MAX_TEXT)
    .map(({ element, text }) => ({ element, text: norm(text), number: text.length <= 40 ? parseLocaleNumber(text.replace(/[^\d.,\s'-]/g, '').trim()) : null }));
  return { roots, texts, elements, pageUrl };
}

/** Elements holding the value, innermost first (a match whose child also matches is left out). */
function holders(index: PageIndex, field: Field, value: unknown): Element[] {
  if (value === null || value === undefined || value === '') return [];
  if (field.attribute) {
    const wanted = norm(value);
    return index.elements.filter((element) => {
      const raw = element.attribs[field.attribute!];
      if (raw === undefined) return false;
      if (norm(raw) === wanted) return true;
      try {
        return norm(new URL(raw, index.pageUrl).href) === wanted || norm(new URL(raw, index.pageUrl).pathname) === norm(new URL(String(value), index.pageUrl).pathname);
      } catch {
        return false;
      }
    });
  }
  const matches = index.texts.filter(({ text, number }) => (typeof value === 'number' ? number === value || text === norm(value) : text === norm(value) || (norm(value).length >= 4 && text.includes(norm(value)) && text.length <= norm(value).length * 2)));
  const set = new Set(matches.map(({ element }) => element));
  return matches.map(({ element }) => element).filter((element) => !elementChildren(element).some((child) => set.has(child) || allElements([child]).some((inner) => set.has(inner) && inner !== element)));
}

function ancestors(element: Element): Element[] {
  const out: Element[] = [];
  for (let current: Element | null = element; current; current = parentElement(current)) out.push(current);
  return out;
}

function commonAncestor(elements: Element[]): Element | null {
  if (elements.length === 0) return null;
  const [first, ...rest] = elements.map(ancestors);
  return first!.find((candidate) => rest.every((chain) => chain.includes(candidate))) ?? null;
}

/** Of several candidates, the one nearest to the anchor (deepest common ancestor). */
function nearest(candidates: Element[], anchor: Element): Element | undefined {
  let best: Element | undefined;
  let bestDepth = -1;
  for (const candidate of candidates) {
    const common = commonAncestor([candidate, anchor]);
    const depth = common ? ancestors(common).length : 0;
    if (depth > bestDepth) {
      best = candidate;
      bestDepth = depth;
    }
  }
  return best;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Items of a list from the containers found for some of its records: their siblings of the same kind. */
function itemsFrom(containers: Element[]): Element[] {
  if (containers.length >= 2) {
    const parent = commonAncestor(containers);
    if (!parent) return containers;
    const children = containers.map((container) => ancestors(container).find((a) => parentElement(a) === parent) ?? container);
    const tag = children[0]!.name;
    if (children.every((child) => child.name === tag) && new Set(children).size === children.length) {
      const shared = stableClasses(children[0]!).filter((cls) => children.every((child) => stableClasses(child).includes(cls)));
      return elementChildren(parent).filter((child) => child.name === tag && shared.every((cls) => stableClasses(child).includes(cls)));
    }
    return children;
  }
  // One known record: climb to the first level where it has look-alike siblings.
  for (let current: Element | null = containers[0] ?? null; current; current = parentElement(current)) {
    const parent = parentElement(current);
    if (!parent) break;
    const alike = elementChildren(parent).filter((child) => child.name === current!.name && (stableClasses(current!)[0] ?? '') === (stableClasses(child)[0] ?? ''));
    if (alike.length >= 2) return alike;
  }
  return containers;
}

interface Context {
  index: PageIndex;
  repaired: string[];
  unrepaired: string[];
}

function healScalar(field: Field, value: unknown, path: string, context: Context): Field {
  const found = holders(context.index, field, value)[0];
  if (!found || field.selector === undefined) {
    if (value !== null && value !== undefined && field.selector !== undefined) context.unrepaired.push(path);
    return field;
  }
  const selector = uniqueSelector(found, context.index.roots);
  if (selector !== field.selector) context.repaired.push(path);
  return { ...field, selector };
}

function healObjects(field: Field, value: unknown, path: string, context: Context): Field {
  const expectedItems = (Array.isArray(value) ? value : []).map(record).slice(0, 6);
  const subfields = field.fields ?? [];
  // For each known record: its fields' elements, anchored on the first field found.
  const found: Array<Map<string, Element>> = [];
  for (const item of expectedItems) {
    const elements = new Map<string, Element>();
    let anchor: Element | undefined;
    for (const sub of subfields) {
      const candidates = holders(context.index, sub, item[sub.name]);
      const chosen = anchor ? nearest(candidates, anchor) : candidates[0];
      if (!chosen) continue;
      anchor ??= chosen;
      elements.set(sub.name, chosen);
    }
    if (elements.size > 0) found.push(elements);
  }
  const containers = found.map((elements) => (elements.size > 1 ? commonAncestor([...elements.values()]) : parentElement([...elements.values()][0]!))).filter((element): element is Element => element !== null);
  if (containers.length === 0) {
    context.unrepaired.push(path);
    return field;
  }
  const items = itemsFrom(containers);
  const itemSelector = groupSelector(items, context.index.roots) ?? field.selector!;
  // The item that holds each known record's elements.
  const itemOf = (element: Element) => items.find((item) => item === element || ancestors(element).includes(item));
  const fields = subfields.map((sub) => {
    const slots = found
      .map((elements) => elements.get(sub.name))
      .filter((element): element is Element => element !== undefined)
      .map((element) => ({ item: itemOf(element), element }))
      .filter((slot): slot is { item: Element; element: Element } => slot.item !== undefined);
    if (slots.length === 0) {
      if (expectedItems.some((item) => item[sub.name] !== null && item[sub.name] !== undefined)) context.unrepaired.push(`${path}.${sub.name}`);
      return sub;
    }
    const candidates = slots[0]!.element === slots[0]!.item ? [':scope'] : relativeCandidates(slots[0]!.element, slots[0]!.item);
    const selector = relativeSelector(slots, candidates);
    if (!selector) {
      context.unrepaired.push(`${path}.${sub.name}`);
      return sub;
    }
    if (selector !== sub.selector) context.repaired.push(`${path}.${sub.name}`);
    return { ...sub, selector };
  });
  if (itemSelector !== field.selector) context.repaired.push(path);
  return { ...field, selector: itemSelector, fields };
}

function healScalars(field: Field, value: unknown, path: string, context: Context): Field {
  const item = field.items ?? { type: 'string' as const };
  const values = (Array.isArray(value) ? value : []).slice(0, 6);
  const elements = values.map((v) => holders(context.index, { name: 'x', ...item } as Field, v)[0]).filter((element): element is Element => element !== undefined);
  if (elements.length === 0) {
    if (values.length > 0) context.unrepaired.push(path);
    return field;
  }
  const items = itemsFrom(elements.length >= 2 ? elements : [elements[0]!]);
  const selector = groupSelector(items.length >= 2 ? items : elements, context.index.roots);
  if (!selector) {
    context.unrepaired.push(path);
    return field;
  }
  if (selector !== field.selector) context.repaired.push(path);
  return { ...field, selector };
}

function healFields(fields: Field[], expected: Record<string, unknown>, prefix: string, context: Context): Field[] {
  return fields.map((field) => {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const value = expected[field.name];
    if (field.type === 'object' && field.fields && field.selector === undefined) return { ...field, fields: healFields(field.fields, record(value), path, context) };
    if (field.selector === undefined) return field; // a model field: nothing to anchor
    if (field.type === 'array' && field.fields) return healObjects(field, value, path, context);
    if (field.type === 'array') return healScalars(field, value, path, context);
    if (field.type === 'object') return field;
    return healScalar(field, value, path, context);
  });
}

function leaves(value: unknown, out: string[] = []): string[] {
  if (value === null || value === undefined || value === '') return out;
  if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (typeof value === 'object') for (const item of Object.values(value as Record<string, unknown>)) leaves(item, out);
  else out.push(typeof value === 'number' ? `n:${value}` : `s:${norm(value)}`);
  return out;
}

/** Share of the expected leaf values that `data` holds (as a multiset-free set comparison). */
export function recoveryOf(expected: unknown, data: unknown): { found: number; total: number } {
  const wanted = leaves(expected);
  const present = new Set(leaves(data));
  return { found: wanted.filter((value) => present.has(value)).length, total: wanted.length };
}

export function healStructure(input: HealInput): HealResult {
  const index = indexPage(input.html, input.config.selector, input.pageUrl);
  const context: Context = { index, repaired: [], unrepaired: [] };
  const structure = healFields(input.config.structure, input.expected, '', context);
  let data: Record<string, unknown> = {};
  try {
    data = compileStructure({ selector: input.config.selector, structure }).extract(input.html, input.pageUrl).data;
  } catch {
    // A selector that does not compile is not offered: the caller sees zero recovery.
  }
  return { structure, repaired: [...new Set(context.repaired)], unrepaired: [...new Set(context.unrepaired)], recovery: recoveryOf(input.expected, data), data };
}
