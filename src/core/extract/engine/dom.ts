import { compile, selectAll, selectOne } from 'css-select';
import { DomHandler, type AnyNode, type Document, type Element } from 'domhandler';
import { getOuterHTML } from 'domutils';
import { Parser } from 'htmlparser2';
import { PagejsonError } from '../../shared/index.js';
import { expandRowSpans, isSuperscriptCents, isUnreadElement } from './reading.js';
import { parserOptions } from './skipping-tokenizer.js';

/**
 * The DOM layer of the structure engine: htmlparser2 documents (about 6x faster than cheerio's default parse5
 * on a 100 KB page, docs/performance.md) queried with css-select queries compiled once per config revision.
 */

export type { AnyNode, Document, Element };
export type HtmlDocument = Document;

/** Elements in htmlparser2 have type tag, script or style (domhandler's isTag, without importing it directly). */
export function isTag(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

/**
 * Bounds of a parsed document. A page is hostile until checked: nesting tens of thousands of elements deep
 * makes every descendant query walk that chain (a 132 KB page took 36 s), and millions of elements exhaust
 * memory. Browsers stop nesting at 512 (Blink's tree-depth limit); real pages stay far below both numbers.
 */
export interface DocumentLimits {
  maxDepth: number;
  maxElements: number;
}

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = { maxDepth: 512, maxElements: 200_000 };

/**
 * The limits a parse without its own uses in this thread: the defaults, or the project's, set once by a thread
 * that works for one project (the repair thread: its heuristics parse the page in many places).
 */
let threadLimits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS;

export function useDocumentLimits(limits: DocumentLimits): void {
  threadLimits = { maxDepth: limits.maxDepth, maxElements: limits.maxElements };
}

/** Thrown while parsing a page past its limits (EXTRACTION_LIMIT), wherever the page is parsed. */
export class DocumentLimitError extends PagejsonError {
  constructor(
    readonly limit: keyof DocumentLimits,
    readonly value: number,
  ) {
    const setting = `extraction.${limit}`;
    super(
      'EXTRACTION_LIMIT',
      `extraction stopped: ${limit === 'maxDepth' ? `the page nests elements deeper than ${value} levels` : `the page has more than ${value} elements`} (${setting} in pagejson.json)`,
      {
        context: { limit, value },
        hint: `a real page stays far below this; if this source really is that large, raise ${setting} in pagejson.json (a running \`pagejson serve\` takes it when restarted)`,
      },
    );
    this.name = 'DocumentLimitError';
  }
}

/** A DomHandler that counts as it builds: the limit stops the parse at once rather than after the damage. */
class BoundedHandler extends DomHandler {
  private elements = 0;
  /** Whether a <base> element was opened: most pages have none, and then no query needs to look for one. */
  sawBase = false;
  /** Whether any element has a rowspan attribute: only then can a cell span rows (read here, not by a scan of the text). */
  sawRowSpan = false;

  get elementCount(): number {
    return this.elements;
  }

  constructor(private readonly limits: DocumentLimits) {
    super();
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    this.elements += 1;
    if (this.elements > this.limits.maxElements) throw new DocumentLimitError('maxElements', this.limits.maxElements);
    // tagStack holds the root too: its length is the depth of the element being opened.
    if (this.tagStack.length > this.limits.maxDepth) throw new DocumentLimitError('maxDepth', this.limits.maxDepth);
    if (name === 'base') this.sawBase = true;
    if (!this.sawRowSpan && Object.hasOwn(attribs, 'rowspan')) this.sawRowSpan = true;
    super.onopentag(name, attribs);
  }
}

/**
 * Documents parsed here that hold no <base> element: their base URL is the page's own, found without a walk
 * over every element (a tenth of an extraction's selecting on a 100 KB page with no <base>, the common case).
 */
const documentsWithoutBase = new WeakSet<Document>();

export function parseHtml(html: string, limits: DocumentLimits = threadLimits): Document {
  const handler = new BoundedHandler(limits);
  new Parser(handler, parserOptions()).end(html);
  const doc = handler.root;
  if (!handler.sawBase) documentsWithoutBase.add(doc);
  // Row-spanning cells are copied into the rows they span (reading.ts); the copies count against maxElements.
  if (handler.sawRowSpan) {
    try {
      expandRowSpans(doc, limits.maxElements - handler.elementCount);
    } catch {
      throw new DocumentLimitError('maxElements', limits.maxElements);
    }
  }
  return doc;
}

/**
 * A selector compiled once. `select`/`selectFirst` search the descendants of each scope node (never the
 * scope node itself, except with `:scope`), in document order of the scopes given.
 */
export interface CompiledSelector {
  readonly source: string;
  select(scope: AnyNode | readonly AnyNode[]): Element[];
  selectFirst(scope: AnyNode | readonly AnyNode[]): Element | null;
  /**
   * The matches below `root` that have no matching ancestor below it, in document order: what
   * `removeSubsets(select(root))` gives, without walking inside a match (a section selector such as `body`
   * then looks at a handful of elements, not the whole page).
   */
  selectTopMost(root: AnyNode): Element[];
}

// `:scope` and relative selectors (`> td`) need the scope element at compile time in css-select, which
// would mean one compilation per array item. Instead they are rewritten to a custom pseudo-class that
// compares against the scope node of the query currently running (queries are synchronous: one slot is safe).
// css-select's result caches would remember a match made for another scope, so they are off for these.
const SCOPE_PSEUDO = 'pagejson-scope';
let currentScope: AnyNode | null = null;
const pseudos = { [SCOPE_PSEUDO]: (element: Element) => element === currentScope };
const SELF_SELECTORS = new Set([':scope', '&']);

function rewriteRelative(selector: string): string {
  return selector.replace(/:scope(?![\w-])/g, `:${SCOPE_PSEUDO}`).replace(/(^|,)\s*(?=[>+~])/g, `$1:${SCOPE_PSEUDO} `);
}

function isRelative(selector: string): boolean {
  return /:scope(?![\w-])/.test(selector) || /(^|,)\s*[>+~]/.test(selector);
}

const selectorCache = new Map<string, CompiledSelector>();
const SELECTOR_CACHE_LIMIT = 5000;

type Query = (element: Element) => boolean;

function queryAll(query: Query, scope: AnyNode | readonly AnyNode[], scoped: boolean): Element[] {
  const scopes = Array.isArray(scope) ? (scope as readonly AnyNode[]) : [scope as AnyNode];
  const found: Element[] = [];
  for (const node of scopes) {
    if (scoped) currentScope = node;
    try {
      found.push(...selectAll<AnyNode, Element>(query, node));
    } finally {
      currentScope = null;
    }
  }
  return found;
}

function queryFirst(query: Query, scope: AnyNode | readonly AnyNode[], scoped: boolean): Element | null {
  const scopes = Array.isArray(scope) ? (scope as readonly AnyNode[]) : [scope as AnyNode];
  for (const node of scopes) {
    if (scoped) currentScope = node;
    try {
      const match = selectOne<AnyNode, Element>(query, node);
      if (match !== null) return match;
    } finally {
      currentScope = null;
    }
  }
  return null;
}

/** css-select's walk (template contents are not searched, as there), not descending into a match. */
function queryTopMost(query: Query, root: AnyNode, scoped: boolean): Element[] {
  const found: Element[] = [];
  if (!('children' in root)) return found;
  if (scoped) currentScope = root;
  try {
    // Arrays of siblings still to visit and the index reached in each: depth first, in document order.
    const lists: AnyNode[][] = [root.children];
    const positions: number[] = [0];
    while (lists.length > 0) {
      const top = lists.length - 1;
      const list = lists[top]!;
      if (positions[top]! >= list.length) {
        lists.pop();
        positions.pop();
        continue;
      }
      const node = list[positions[top]!++]!;
      if (!isTag(node)) continue;
      if (query(node)) found.push(node);
      else if (node.name !== 'template' && node.children.length > 0) {
        lists.push(node.children);
        positions.push(0);
      }
    }
  } finally {
    currentScope = null;
  }
  return found;
}

/**
 * `> :nth-child(3)` (or `> td:nth-child(3)`): a table's column, read in every row of every table the heuristic
 * proposes. It is the scope's n-th element child, taken directly: css-select would test every node below the row
 * against the compiled query (a quarter of a large table's generation time). Same matches, checked against
 * css-select's in structure-dom-walks.test.ts.
 */
const CHILD_AT = /^>\s*([a-z][\w-]*|\*)?:nth-child\(\s*(\d+)\s*\)$/i;

function childAtSelector(source: string, tag: string, position: number): CompiledSelector {
  const childOf = (scope: AnyNode): Element | null => {
    if (!('children' in scope)) return null;
    let seen = 0;
    for (const child of scope.children) {
      if (!isTag(child) || ++seen < position) continue;
      return tag === '*' || child.name === tag ? child : null;
    }
    return null;
  };
  const scopesOf = (scope: AnyNode | readonly AnyNode[]) => (Array.isArray(scope) ? (scope as readonly AnyNode[]) : [scope as AnyNode]);
  const select = (scope: AnyNode | readonly AnyNode[]) => scopesOf(scope).flatMap((node) => childOf(node) ?? []);
  return {
    source,
    select,
    selectFirst: (scope) => {
      for (const node of scopesOf(scope)) {
        const child = childOf(node);
        if (child) return child;
      }
      return null;
    },
    selectTopMost: (root) => select(root),
  };
}

/** Compiles (and memoises by text) a selector; throws the parser's error when it does not parse. */
export function compileSelector(selector: string): CompiledSelector {
  const cached = selectorCache.get(selector);
  if (cached) return cached;
  const trimmed = selector.trim();
  if (trimmed === '') throw new Error('selector is empty');
  let compiled: CompiledSelector;
  const column = CHILD_AT.exec(trimmed);
  if (column) {
    compiled = childAtSelector(selector, column[1]?.toLowerCase() ?? '*', Number(column[2]));
  } else if (SELF_SELECTORS.has(trimmed)) {
    const self = (scope: AnyNode | readonly AnyNode[]) =>
      (Array.isArray(scope) ? (scope as readonly AnyNode[]) : [scope as AnyNode]).filter(isTag);
    compiled = { source: selector, select: self, selectFirst: (scope) => self(scope)[0] ?? null, selectTopMost: self };
  } else {
    const scoped = isRelative(trimmed);
    const query = scoped
      ? compile<AnyNode, Element>(rewriteRelative(trimmed), { pseudos, relativeSelector: false, cacheResults: false })
      : compile<AnyNode, Element>(trimmed);
    compiled = {
      source: selector,
      select: (scope) => queryAll(query, scope, scoped),
      selectFirst: (scope) => queryFirst(query, scope, scoped),
      selectTopMost: (root) => queryTopMost(query, root, scoped),
    };
  }
  if (selectorCache.size >= SELECTOR_CACHE_LIMIT) selectorCache.clear();
  selectorCache.set(selector, compiled);
  return compiled;
}

/** null when the selector parses and can run, else the parser's message. */
export function validateSelector(selector: string): string | null {
  try {
    compileSelector(selector);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const SKIPPED_TEXT = new Set(['script', 'style', 'template', 'noscript']);
const BLOCK_ELEMENTS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'option',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/**
 * The text a reader sees, whitespace-collapsed: block boundaries and <br> become spaces (domutils'
 * textContent would glue `<p>a</p><p>b</p>` into "ab"), script and style contents are left out.
 */
export function visibleText(node: AnyNode): string {
  if (isTag(node) && SKIPPED_TEXT.has(node.name)) return collapseWhitespace(rawText(node));
  const parts: string[] = [];
  // The element asked for is read even when hidden (its selector chose it); what it hides inside is not.
  if (isTag(node)) for (const child of node.children) collectText(child, parts);
  else collectText(node, parts);
  return collapseWhitespace(parts.join(''));
}

function collectText(node: AnyNode, parts: string[]): void {
  if (node.type === 'text') {
    parts.push(node.data);
    return;
  }
  if (isTag(node)) {
    // Hidden text, sort keys and footnote marks are not what a reader reads (reading.ts).
    if (SKIPPED_TEXT.has(node.name) || isUnreadElement(node)) return;
    if (node.name === 'sup' && isSuperscriptCents(node, parts.join(''))) parts.push('.');
    const block = BLOCK_ELEMENTS.has(node.name);
    if (block) parts.push(' ');
    for (const child of node.children) collectText(child, parts);
    if (block) parts.push(' ');
  } else if (node.type === 'root') {
    for (const child of node.children) collectText(child, parts);
  }
}

/** Raw text content, unchanged (JSON inside <script> must not have its string values collapsed). */
export function rawText(node: AnyNode): string {
  if (node.type === 'text' || node.type === 'cdata') {
    return node.type === 'text' ? node.data : node.children.map(rawText).join('');
  }
  if (isTag(node) || node.type === 'root') return (node as Element).children.map(rawText).join('');
  return '';
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The document's base for relative URLs: `<base href>` resolved against the page's final URL. */
export function documentBaseUrl(doc: Document, finalUrl: string): string {
  if (documentsWithoutBase.has(doc)) return finalUrl;
  const base = compileSelector('base[href]').selectFirst(doc);
  const href = base?.attribs.href?.trim();
  if (href) {
    try {
      return new URL(href, finalUrl).href;
    } catch {
      // An unparsable <base> is ignored, as browsers do.
    }
  }
  return finalUrl;
}

/**
 * Roots of the config's section: every top-most match of its selector. An HTML fragment has no <body> in
 * htmlparser2 (parse5 would invent one), so `body` and `html` fall back to the whole document.
 */
export function sectionRoots(doc: Document, selector: string): AnyNode[] {
  const matches = compileSelector(selector).selectTopMost(doc);
  if (matches.length === 0 && /^\s*(body|html)\s*$/i.test(selector)) return [doc];
  return matches;
}

/** Outer HTML of every (top-most) match of the selector, and how many there were. */
export function selectSection(
  html: string,
  selector: string,
  limits: DocumentLimits = threadLimits,
): { sectionHtml: string; matched: number } {
  const doc = parseHtml(html, limits);
  const roots = sectionRoots(doc, selector);
  if (roots.length === 1 && roots[0] === doc) return { sectionHtml: html, matched: 1 };
  return { sectionHtml: roots.map((root) => getOuterHTML(root)).join('\n'), matched: roots.length };
}
