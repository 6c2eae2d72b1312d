import { DomUtils, ElementType, parseDocument } from 'htmlparser2';
import { isUnreadElement } from '../extract/index.js';

// Node types come from htmlparser2's own domhandler (other packages nest different versions): tested by
// `type`, never by instanceof.
type ParsedDocument = ReturnType<typeof parseDocument>;
type ChildNode = ParsedDocument['children'][number];
type Element = Extract<ChildNode, { attribs: Record<string, string> }>;
type Text = Extract<ChildNode, { type: typeof ElementType.Text }>;
type ParentNode = ParsedDocument | Element;

const isElement = (node: ChildNode): node is Element => ElementType.isTag(node);
const isText = (node: ChildNode): node is Text => node.type === ElementType.Text;

/** A comment node made by the parser itself, so it has the same class as the tree it joins. */
function makeComment(text: string): ChildNode {
  return parseDocument(`<!--${text.replace(/--/g, '- -')}-->`).children[0]!;
}

/**
 * Shrinks a page section into what a language model needs to propose selectors: tags, ids, classes, links
 * and text. Everything else (scripts, styles, svg, comments, inline handlers, tracking attributes) is noise
 * that costs tokens and misleads the model. The result is bounded so that one huge page cannot produce an
 * unbounded (and unbounded-cost) prompt.
 *
 * Rules for long pages, applied in this order:
 * 1. a run of more than `keepRepeated` sibling elements with the same tag and class keeps its first
 *    `keepRepeated` and is followed by a marker comment saying how many similar elements were left out
 *    (one list item is as good as fifty for proposing the selectors of a list);
 * 2. a text node longer than `maxTextChars` is cut with an ellipsis;
 * 3. if the result is still longer than `maxChars`, it is cut there and ends with a truncation marker.
 */
export interface CleanOptions {
  maxChars?: number;
  keepRepeated?: number;
  maxTextChars?: number;
}

export const DEFAULT_MAX_HTML_CHARS = 60_000;
const DEFAULT_KEEP_REPEATED = 8;
const DEFAULT_MAX_TEXT_CHARS = 400;

const DROPPED_ELEMENTS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'link', 'base']);
/** Attributes that name or locate content; selectors are built from these. */
const KEPT_ATTRIBUTES = new Set([
  'id',
  'class',
  'href',
  'src',
  'alt',
  'title',
  'name',
  'lang',
  'type',
  'role',
  'value',
  'content',
  'datetime',
  'itemprop',
  'itemtype',
  'itemscope',
  'property',
  'rel',
  'for',
  'colspan',
  'rowspan',
  'aria-label',
  'headers',
  'scope',
]);
/** The few data-* attributes that commonly carry the datum itself rather than tracking state. */
const KEPT_DATA_ATTRIBUTES = new Set(['data-id', 'data-price', 'data-sku', 'data-testid', 'data-value', 'data-name', 'data-url']);
const MAX_ATTRIBUTE_CHARS = 200;

export const TRUNCATION_MARKER = '<!-- pagejson: truncated, the rest of the section was left out -->';

export function cleanHtml(html: string, options: CleanOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_HTML_CHARS;
  const keepRepeated = options.keepRepeated ?? DEFAULT_KEEP_REPEATED;
  const maxTextChars = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
  const document = parseDocument(html, { decodeEntities: true });
  cleanChildren(document, { keepRepeated, maxTextChars });
  const text = DomUtils.getOuterHTML(document, { decodeEntities: true, encodeEntities: 'utf8' }).trim();
  if (text.length <= maxChars) return text;
  // Cut before a tag starts rather than inside one, so the model never sees half an attribute.
  const room = Math.max(0, maxChars - TRUNCATION_MARKER.length - 1);
  const cut = text.lastIndexOf('<', room);
  return `${text.slice(0, cut > room / 2 ? cut : room)}\n${TRUNCATION_MARKER}`;
}

interface Limits {
  keepRepeated: number;
  maxTextChars: number;
}

function cleanChildren(parent: ParentNode, limits: Limits): void {
  const kept: ChildNode[] = [];
  for (const child of parent.children) {
    if (child.type === ElementType.Comment) continue;
    if (isText(child)) {
      const collapsed = collapseWhitespace(child.data, limits.maxTextChars);
      if (collapsed === '' || (collapsed === ' ' && isBlockContext(parent))) continue;
      child.data = collapsed;
      kept.push(child);
      continue;
    }
    if (isElement(child)) {
      if (isDropped(child)) continue;
      cleanAttributes(child);
      cleanChildren(child, limits);
      kept.push(child);
      continue;
    }
    // Directives (doctype), CDATA and processing instructions carry nothing a selector can use.
  }
  setChildren(parent, collapseRepeats(kept, limits.keepRepeated));
}

function isDropped(element: Element): boolean {
  const name = element.name.toLowerCase();
  if (name === 'script') {
    // JSON-LD holds structured facts (price, sku) that `json:` transforms can extract: keep it.
    return (element.attribs.type ?? '').toLowerCase() !== 'application/ld+json';
  }
  if (name === 'meta') return !('itemprop' in element.attribs || 'property' in element.attribs || element.attribs.name === 'description');
  // What a reader does not see (hidden text, sort keys, footnote marks) is what retrieval does not read either
  // (structure/reading.ts): the model should not build selectors on it. Microdata carriers stay.
  if (isUnreadElement(element) && !('itemprop' in element.attribs)) return true;
  return DROPPED_ELEMENTS.has(name);
}

function cleanAttributes(element: Element): void {
  const next: Record<string, string> = {};
  for (const [name, value] of Object.entries(element.attribs)) {
    const lower = name.toLowerCase();
    const keep = KEPT_ATTRIBUTES.has(lower) || KEPT_DATA_ATTRIBUTES.has(lower);
    if (!keep) continue;
    if (value.startsWith('data:')) {
      next[lower] = 'data:…';
      continue;
    }
    next[lower] = value.length > MAX_ATTRIBUTE_CHARS ? `${value.slice(0, MAX_ATTRIBUTE_CHARS)}…` : value;
  }
  element.attribs = next;
}

function collapseWhitespace(text: string, maxChars: number): string {
  const collapsed = text.replace(/\s+/g, ' ');
  if (collapsed.trim() === '') return collapsed === '' ? '' : ' ';
  return collapsed.length > maxChars ? `${collapsed.slice(0, maxChars)}…` : collapsed;
}

const BLOCK_PARENTS = new Set(['ul', 'ol', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'select', 'dl', 'html', 'head', 'body']);
function isBlockContext(parent: ParentNode): boolean {
  return !('name' in parent) || BLOCK_PARENTS.has(parent.name.toLowerCase());
}

function signature(node: ChildNode): string | undefined {
  return isElement(node) ? `${node.name}.${node.attribs.class ?? ''}` : undefined;
}

/** Keeps the first `keep` elements of each run of same-signature siblings; whitespace between them does not break a run. */
function collapseRepeats(children: ChildNode[], keep: number): ChildNode[] {
  const out: ChildNode[] = [];
  let runSignature: string | undefined;
  let runCount = 0;
  let omitted = 0;
  let omittedExample = '';
  const flush = (): void => {
    if (omitted > 0) out.push(makeComment(` pagejson: ${omitted} more similar <${omittedExample}> elements left out `));
    omitted = 0;
  };
  for (const child of children) {
    const sig = signature(child);
    if (sig === undefined) {
      if (isText(child) && child.data.trim() === '' && runCount > 0) {
        if (runCount <= keep) out.push(child);
        continue;
      }
      flush();
      runSignature = undefined;
      runCount = 0;
      out.push(child);
      continue;
    }
    if (sig === runSignature) runCount += 1;
    else {
      flush();
      runSignature = sig;
      runCount = 1;
    }
    if (runCount <= keep) out.push(child);
    else {
      omitted += 1;
      const element = child as Element;
      omittedExample = element.attribs.class ? `${element.name} class="${element.attribs.class}"` : element.name;
    }
  }
  flush();
  return out;
}

function setChildren(parent: ParentNode, children: ChildNode[]): void {
  parent.children = children;
  children.forEach((child, index) => {
    child.parent = parent;
    child.prev = children[index - 1] ?? null;
    child.next = children[index + 1] ?? null;
  });
}
