import type { AnyNode } from 'domhandler';
import type { ApiConfig, Field } from '../config/index.js';
import { readsFirst, shareRepairedSelectors, withGuards } from './heal-shared.js';
import { checkRepair } from './repair-check.js';
import {
  allElements,
  compileStructure,
  elementChildren,
  groupSelector,
  parentElement,
  parseHtml,
  parseLocaleNumber,
  relativeCandidates,
  relativeSelector,
  selectIn,
  stableClasses,
  textOf,
  uniqueSelector,
  type Element,
} from '../extract/index.js';

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
  /** Repairs refused because the values they read are not the field's, each with why (repair-check.ts). */
  refused: string[];
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
    .map(({ element, text }) => ({
      element,
      text: norm(text),
      number: text.length <= 40 ? parseLocaleNumber(text.replace(/[^\d.,\s'-]/g, '').trim()) : null,
    }));
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
        return (
          norm(new URL(raw, index.pageUrl).href) === wanted ||
          norm(new URL(raw, index.pageUrl).pathname) === norm(new URL(String(value), index.pageUrl).pathname)
        );
      } catch {
        return false;
      }
    });
  }
  const matches = index.texts.filter(({ text, number }) =>
    typeof value === 'number'
      ? number === value || text === norm(value)
      : text === norm(value) || (norm(value).length >= 4 && text.includes(norm(value)) && text.length <= norm(value).length * 2),
  );
  const set = new Set(matches.map(({ element }) => element));
  return matches
    .map(({ element }) => element)
    .filter(
      (element) =>
        !elementChildren(element).some(
          (child) => set.has(child) || allElements([child]).some((inner) => set.has(inner) && inner !== element),
        ),
    );
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

/** The tag names from below `ancestor` down to `element`. */
function tagPath(ancestor: Element, element: Element): string[] {
  const names: string[] = [];
  for (let current: Element | null = element; current && current !== ancestor; current = parentElement(current))
    names.unshift(current.name);
  return names;
}

/** Items of a list from the containers found for some of its records: their siblings of the same kind. */
function itemsFrom(containers: Element[], roots: AnyNode[]): { items: Element[]; selector?: string } {
  if (containers.length >= 2) {
    const parent = commonAncestor(containers);
    if (!parent) return { items: containers };
    const children = containers.map((container) => ancestors(container).find((a) => parentElement(a) === parent) ?? container);
    const tag = children[0]!.name;
    if (children.every((child) => child.name === tag) && new Set(children).size === children.length) {
      const shared = stableClasses(children[0]!).filter((cls) => children.every((child) => stableClasses(child).includes(cls)));
      return {
        items: elementChildren(parent).filter((child) => child.name === tag && shared.every((cls) => stableClasses(child).includes(cls))),
      };
    }
    // Records spread over several containers (rows of cards): every element at the records' tag path.
    const path = tagPath(parent, containers[0]!);
    if (containers.every((container) => tagPath(parent, container).join('>') === path.join('>'))) {
      const selector = `${uniqueSelector(parent, roots)} > ${path.join(' > ')}`;
      return { items: selectIn(selector, roots), selector };
    }
    return { items: children };
  }
  // One known record: climb to the first level where it has look-alike siblings.
  for (let current: Element | null = containers[0] ?? null; current; current = parentElement(current)) {
    const parent = parentElement(current);
    if (!parent) break;
    const alike = elementChildren(parent).filter(
      (child) => child.name === current!.name && (stableClasses(current!)[0] ?? '') === (stableClasses(child)[0] ?? ''),
    );
    if (alike.length >= 2) return { items: alike };
  }
  return { items: containers };
}

interface Context {
  index: PageIndex;
  repaired: string[];
  unrepaired: string[];
  /** Paths repaired with a partner that read the same element, not by their own values. */
  shared: Set<string>;
}

function healScalar(field: Field, value: unknown, path: string, context: Context): Field {
  const found = holders(context.index, field, value)[0];
  if (!found || field.selector === undefined) {
    if (value !== null && value !== undefined && field.selector !== undefined) context.unrepaired.push(path);
    return field;
  }
  const roots = context.index.roots;
  const selector = withGuards(field.selector, uniqueSelector(found, roots), (candidate) =>
    readsFirst(candidate, [{ root: roots, element: found }]),
  );
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
    // A list inside a record (feature bullets) is found by its first value.
    const valueOf = (sub: Field) =>
      sub.type === 'array' && Array.isArray(item[sub.name]) ? (item[sub.name] as unknown[])[0] : item[sub.name];
    const probe = (sub: Field): Field => (sub.type === 'array' ? ({ name: sub.name, type: 'string', ...(sub.items ?? {}) } as Field) : sub);
    const candidates = subfields
      .map((sub) => ({ sub, found: holders(context.index, probe(sub), valueOf(sub)) }))
      .filter(({ found: list }) => list.length > 0);
    if (candidates.length === 0) continue;
    // The rarest value anchors the record (a title beats a rank of "1" that is everywhere).
    const rarest = [...candidates].sort((a, b) => a.found.length - b.found.length)[0]!;
    // Of the rarest value's places, the one the record's other values sit closest to (a name also quoted in
    // an infobox or a navbox is the one in the row beside its dates).
    const closeness = (place: Element) =>
      candidates.reduce((sum, { sub, found: list }) => {
        if (sub === rarest.sub) return sum;
        const other = nearest(list.slice(0, 50), place);
        const common = other ? commonAncestor([other, place]) : null;
        return sum + (common ? ancestors(common).length : 0);
      }, 0);
    const anchor = rarest.found.slice(0, 20).reduce((best, place) => (closeness(place) > closeness(best) ? place : best), rarest.found[0]!);
    for (const { sub, found: list } of candidates) elements.set(sub.name, sub === rarest.sub ? anchor : nearest(list, anchor)!);
    found.push(elements);
  }
  const containers = found
    .map((elements) => (elements.size > 1 ? commonAncestor([...elements.values()]) : parentElement([...elements.values()][0]!)))
    .filter((element): element is Element => element !== null);
  if (containers.length === 0) {
    context.unrepaired.push(path);
    return field;
  }
  const { items, selector: pathSelector } = itemsFrom(containers, context.index.roots);
  const itemSelector = pathSelector ?? groupSelector(items, context.index.roots) ?? field.selector!;
  // The item that holds each known record's elements.
  const itemOf = (element: Element) => items.find((item) => item === element || ancestors(element).includes(item));
  const fields = subfields.map((sub) => {
    const slots = found
      .map((elements) => elements.get(sub.name))
      .filter((element): element is Element => element !== undefined)
      .map((element) => ({ item: itemOf(element), element }))
      .filter((slot): slot is { item: Element; element: Element } => slot.item !== undefined);
    if (slots.length === 0) {
      if (expectedItems.some((item) => item[sub.name] !== null && item[sub.name] !== undefined))
        context.unrepaired.push(`${path}.${sub.name}`);
      return sub;
    }
    const candidates = slots[0]!.element === slots[0]!.item ? [':scope'] : relativeCandidates(slots[0]!.element, slots[0]!.item);
    const relative = relativeSelector(slots, candidates);
    if (!relative) {
      context.unrepaired.push(`${path}.${sub.name}`);
      return sub;
    }
    const places = slots.map(({ item, element }) => ({ root: item, element }));
    const selector = withGuards(sub.selector, relative, (candidate) => readsFirst(candidate, places));
    if (selector !== sub.selector) context.repaired.push(`${path}.${sub.name}`);
    return { ...sub, selector };
  });
  if (itemSelector !== field.selector) context.repaired.push(path);
  // Fields of an item that read one element before read the repaired one (a link's title and url).
  const shared = shareRepairedSelectors(subfields, fields, (sub) => `${path}.${sub.name}`, context);
  return { ...field, selector: itemSelector, fields: shared };
}

function healScalars(field: Field, value: unknown, path: string, context: Context): Field {
  const item = field.items ?? { type: 'string' as const };
  const values = (Array.isArray(value) ? value : []).slice(0, 6);
  const elements = values
    .map((v) => holders(context.index, { name: 'x', ...item } as Field, v)[0])
    .filter((element): element is Element => element !== undefined);
  if (elements.length === 0) {
    if (values.length > 0) context.unrepaired.push(path);
    return field;
  }
  const { items, selector: pathSelector } = itemsFrom(elements.length >= 2 ? elements : [elements[0]!], context.index.roots);
  const grouped = stringsSelector(elements, items, pathSelector, context.index.roots);
  if (!grouped) {
    context.unrepaired.push(path);
    return field;
  }
  const selector = withGuards(field.selector, grouped, (candidate) => {
    const guarded = selectIn(candidate, context.index.roots);
    return elements.every((element) => guarded.includes(element));
  });
  if (selector !== field.selector) context.repaired.push(path);
  return { ...field, selector };
}

/**
 * The selector of a list of strings: the items found around its values, and inside each item the element that
 * holds the value (`ul.jobs > li.job-card h2`), for the items are often cards whose text holds more than it.
 */
function stringsSelector(elements: Element[], items: Element[], pathSelector: string | undefined, roots: AnyNode[]): string | null {
  const grouped = pathSelector ?? groupSelector(items.length >= 2 ? items : elements, roots);
  if (!grouped || items.length < 2 || elements.every((element) => items.includes(element))) return grouped;
  const slots = elements
    .map((element) => ({ item: items.find((item) => ancestors(element).includes(item)), element }))
    .filter((slot): slot is { item: Element; element: Element } => slot.item !== undefined);
  if (slots.length === 0) return grouped;
  const relative = relativeSelector(slots, relativeCandidates(slots[0]!.element, slots[0]!.item));
  if (!relative) return null;
  const selector = `${grouped} ${relative}`;
  const selected = selectIn(selector, roots);
  return elements.every((element) => selected.includes(element)) ? selector : null;
}

function healFields(fields: Field[], expected: Record<string, unknown>, prefix: string, context: Context): Field[] {
  const healed = fields.map((field) => {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const value = expected[field.name];
    if (field.type === 'object' && field.fields && field.selector === undefined)
      return { ...field, fields: healFields(field.fields, record(value), path, context) };
    if (field.selector === undefined) return field; // a model field: nothing to anchor
    if (field.type === 'array' && field.fields) return healObjects(field, value, path, context);
    if (field.type === 'array') return healScalars(field, value, path, context);
    if (field.type === 'object') return field;
    return healScalar(field, value, path, context);
  });
  // Fields that read one element before read the repaired one (a product's currency from its price).
  return shareRepairedSelectors(fields, healed, (field) => (prefix ? `${prefix}.${field.name}` : field.name), context);
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

/** The value a structure of one field extracts from the page, or undefined when it cannot run. */
function extractOne(selector: string, field: Field, html: string, pageUrl: string): unknown {
  try {
    return compileStructure({ selector, structure: [field] }).extract(html, pageUrl).data[field.name];
  } catch {
    return undefined;
  }
}

export function healStructure(input: HealInput): HealResult {
  const index = indexPage(input.html, input.config.selector, input.pageUrl);
  const context: Context = { index, repaired: [], unrepaired: [], shared: new Set() };
  const candidate = healFields(input.config.structure, input.expected, '', context);
  // Never worse than before: a field whose old selectors bring back as many of its values stays as it was.
  const structure = candidate.map((healed, position) => {
    const old = input.config.structure[position]!;
    if (healed === old) return old;
    const expected = { [old.name]: input.expected[old.name] };
    const score = (field: Field) =>
      recoveryOf(expected, { [field.name]: extractOne(input.config.selector, field, input.html, input.pageUrl) }).found;
    if (score(old) >= score(healed)) {
      context.repaired = context.repaired.filter((path) => path !== old.name && !path.startsWith(`${old.name}.`));
      return old;
    }
    return healed;
  });
  const extract = (candidateStructure: Field[]): Record<string, unknown> => {
    try {
      return compileStructure({ selector: input.config.selector, structure: candidateStructure }).extract(input.html, input.pageUrl).data;
    } catch {
      return {}; // A selector that does not compile is not offered: the caller sees zero recovery.
    }
  };
  const repairedPaths = [...new Set(context.repaired)];
  const checked = checkRepair(input.config.structure, structure, repairedPaths, context.shared, input.expected, extract);
  const refusedPaths = new Set(checked.refused.map((entry) => entry.slice(0, entry.indexOf(':'))));
  const data = extract(checked.structure);
  // Unrepaired are the fields whose values are still missing, not those that never broke.
  const missing = (path: string) => {
    const [top, sub] = path.split('.');
    const pick = (value: unknown) =>
      sub === undefined ? value : Array.isArray(value) ? value.map((item) => record(item)[sub]) : record(value)[sub];
    const { found, total } = recoveryOf(pick(input.expected[top!]), pick(data[top!]));
    return total > 0 && found < total;
  };
  return {
    structure: checked.structure,
    repaired: repairedPaths.filter((path) => !refusedPaths.has(path)),
    unrepaired: [...new Set([...context.unrepaired, ...refusedPaths])].filter(missing),
    refused: checked.refused,
    recovery: recoveryOf(input.expected, data),
    data,
  };
}
