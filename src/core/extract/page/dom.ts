import { parseHtml as parseEngineHtml } from '../engine/dom.js';
import { isSuperscriptCents, isUnreadElement } from '../engine/reading.js';
import { compile, selectAll, selectOne } from 'css-select';
import { indexedMatches } from './selector-index.js';
import type { AnyNode, Document, Element } from 'domhandler';

/**
 * Small DOM helpers over htmlparser2 documents. The heuristic model parses the page once and the section
 * once, then walks them iteratively (no recursion: pages can be deep) and probes candidate selectors with
 * css-select, the same engine the structure engine runs at retrieval.
 */

export type { Document, Element };

/** The structure engine's parse: the same limits, and the same reading of tables (row spans copied down). */
export function parseHtml(html: string): Document {
  return parseEngineHtml(html);
}

export function isElement(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

export function elementChildren(node: { children: AnyNode[] }): Element[] {
  return node.children.filter(isElement);
}

/** Every element under the roots, in document order, roots included. */
export function allElements(roots: AnyNode[]): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}

/**
 * The first element below `root` (not itself) that passes the test, in document order, template contents left
 * out as css-select leaves them: a plain walk that stops there, where `selectIn(…)[0]` would walk everything.
 */
export function firstDescendant(root: Element, test: (element: Element) => boolean): Element | null {
  const stack = elementChildren(root).reverse();
  for (let element = stack.pop(); element; element = stack.pop()) {
    if (test(element)) return element;
    if (element.name !== 'template')
      for (let i = element.children.length - 1; i >= 0; i--)
        if (isElement(element.children[i]!)) stack.push(element.children[i] as Element);
  }
  return null;
}

const SKIPPED_TEXT = new Set(['script', 'style', 'noscript', 'template']);

/** Whitespace-collapsed text, as the structure engine yields it for a field without attribute. */
export function textOf(node: AnyNode): string {
  const parts: string[] = [];
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current.type === 'text') parts.push((current as unknown as { data: string }).data);
    else if (
      'children' in current &&
      !(isElement(current) && current !== node && (SKIPPED_TEXT.has(current.name) || isUnreadElement(current)))
    ) {
      if (isElement(current) && current.name === 'sup' && current !== node && isSuperscriptCents(current, parts.join(''))) parts.push('.');
      const children = (current as Element).children;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** Raw text of a script element (JSON-LD), untouched. */
export function rawText(element: Element): string {
  return element.children.map((child) => (child.type === 'text' ? (child as unknown as { data: string }).data : '')).join('');
}

/** Text directly inside the element, not in its child elements: marks the element as a text block. */
export function ownText(element: Element): string {
  return element.children
    .map((child) => (child.type === 'text' ? (child as unknown as { data: string }).data : ''))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

export function attr(element: Element, name: string): string | undefined {
  const value = element.attribs[name];
  return value === undefined ? undefined : value.trim();
}

export function classesOf(element: Element): string[] {
  return (element.attribs.class ?? '').split(/\s+/).filter((name) => name.length > 0);
}

export function parentElement(element: Element): Element | null {
  const parent = element.parent;
  return parent && isElement(parent) ? parent : null;
}

export function isInside(element: Element, ancestor: Element): boolean {
  for (let current = parentElement(element); current; current = parentElement(current)) if (current === ancestor) return true;
  return false;
}

type CompiledQuery<E> = ReturnType<typeof compile<AnyNode, E & AnyNode>>;

// Detectors probe the same few selectors inside thousands of items: compile each once.
const compiledQueries = new Map<string, CompiledQuery<Element> | null>();
const QUERY_CACHE_LIMIT = 2000;

function compiledQuery(selector: string): CompiledQuery<Element> | null {
  let query = compiledQueries.get(selector);
  if (query === undefined) {
    try {
      query = compile<AnyNode, Element>(selector) as CompiledQuery<Element>;
    } catch {
      query = null;
    }
    if (compiledQueries.size >= QUERY_CACHE_LIMIT) compiledQueries.clear();
    compiledQueries.set(selector, query);
  }
  return query;
}

/** Matches of the selector in the roots and their descendants (roots included); [] for a selector that does not parse. */
export function selectIn(selector: string, roots: AnyNode | AnyNode[]): Element[] {
  const query = compiledQuery(selector);
  return query ? selectAll<AnyNode, Element>(query, roots) : [];
}

/**
 * Whether the selector matches exactly the expected elements among the roots (as `selectIn` would find them).
 * The walk stops at the first match that is not expected: most candidate selectors of a detector fail, and
 * they fail early, where a full `selectIn` would walk the whole page for each.
 */
export function selectsOnly(selector: string, roots: AnyNode | AnyNode[], expected: readonly Element[]): boolean {
  const query = compiledQuery(selector);
  if (!query) return false;
  const wanted = new Set(expected);
  const indexed = indexedMatches(selector, roots);
  if (indexed) return indexed.length === wanted.size && indexed.every((element) => wanted.has(element));
  let seen = 0;
  const unexpected = Object.assign(
    (element: Element) => {
      if (!query(element)) return false;
      if (!wanted.has(element)) return true;
      seen += 1;
      return false;
    },
    { shouldTestNextSiblings: query.shouldTestNextSiblings },
  );
  return selectOne<AnyNode, Element>(unexpected, roots) === null && seen === wanted.size;
}

/** CSS modules (`ProductCard_name__9yTq2`): the hash changes with every build, the prefix does not. */
const CSS_MODULE_CLASS = /^([A-Za-z][A-Za-z0-9]*_[A-Za-z][A-Za-z0-9-]*__)[A-Za-z0-9_-]{4,10}$/;

/** `ProductCard_name__` for a CSS-modules class, else null: selected with `[class*="ProductCard_name__"]`. */
export function cssModulePrefix(name: string): string | null {
  return CSS_MODULE_CLASS.exec(name)?.[1] ?? null;
}

/** A class name is usable in a selector when it looks hand-written, not generated (css-in-js hashes, state). */
export function isStableClass(name: string): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) return false;
  if (cssModulePrefix(name)) return false;
  if (name.length > 40) return false;
  if (/^(css|sc|jsx|emotion|svelte)-[a-z0-9]+$/i.test(name)) return false;
  if (/[a-z][0-9][a-z0-9]*[0-9]/i.test(name) && /\d{3,}|[A-Z].*\d|\d.*[A-Z]/.test(name)) return false;
  if (/^(active|selected|hidden|visible|open|is-|has-|js-)/.test(name)) return false;
  return true;
}

export function stableClasses(element: Element): string[] {
  return classesOf(element).filter(isStableClass);
}

/** 1-based position among element siblings with the same tag, for :nth-of-type. */
export function positionOfType(element: Element): number {
  const siblings = element.parent ? elementChildren(element.parent as Element) : [element];
  let position = 0;
  for (const sibling of siblings) {
    if (sibling.name === element.name) position++;
    if (sibling === element) return position;
  }
  return 1;
}

export function countOfType(element: Element): number {
  const siblings = element.parent ? elementChildren(element.parent as Element) : [element];
  return siblings.filter((sibling) => sibling.name === element.name).length;
}

export function quoteAttributeValue(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
