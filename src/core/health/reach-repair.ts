import type { ApiConfig, Field } from '../config/index.js';
import { allElements, parentElement, parseHtml, sectionRoots, selectIn, textOf, uniqueSelector, type Element } from '../extract/index.js';
import { healStructure, recoveryOf } from './heal.js';
import { extractedBy } from './repair.js';

/**
 * What a config uses to reach its data, repaired with its fields (issue 47 item 2), as `pagination.next` is
 * (pagination-repair.ts): the section selector and a "Load more" button. Each is repaired only when the old one
 * finds nothing on the page any more and the page offers a clear replacement; otherwise it is kept, since a
 * guess that reads somewhere else is worse than a finding the user sees.
 */

const WHOLE_PAGE = /^\s*(body|html)\s*$/i;

/** Elements a top-level field selects on the page (nothing for a model field or a selector that does not compile). */
function selectedBy(field: Field, roots: ReturnType<typeof parseHtml>): Element[] {
  if (field.selector === undefined) return [];
  try {
    return selectIn(field.selector, roots);
  } catch {
    return [];
  }
}

const norm = (value: unknown) => String(value).replace(/\s+/g, ' ').trim().toLowerCase();

function leaves(value: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) leaves(item, out);
  else if (value !== null && value !== undefined && value !== '') out.push(value);
  return out;
}

function commonAncestor(elements: Element[]): Element | undefined {
  const chain = (element: Element) => {
    const out: Element[] = [];
    for (let at: Element | null = element; at; at = parentElement(at)) out.push(at);
    return out;
  };
  const [first, ...rest] = elements.map(chain);
  return first?.find((candidate) => rest.every((other) => other.includes(candidate)));
}

/**
 * The section selector, when it matches nothing on the page any more (`main.catalogue` after the class became
 * `main.x7-main`): the last good values are found on the whole page, and the section becomes the innermost
 * element holding everything the repaired fields read, by a selector that matches it alone.
 */
export function repairedSection(
  config: Pick<ApiConfig, 'apiId' | 'selector' | 'structure'>,
  html: string,
  pageUrl: string,
  expected: Record<string, unknown>,
): string | undefined {
  if (WHOLE_PAGE.test(config.selector)) return undefined;
  let doc;
  try {
    doc = parseHtml(html);
    if (sectionRoots(doc, config.selector).length > 0) return undefined;
  } catch {
    return undefined; // a selector that no longer compiles is the user's to fix (edit), not guessed here
  }
  const whole = healStructure({ config: { ...config, selector: 'body' }, html, pageUrl, expected });
  if (whole.recovery.found === 0) return undefined;
  // The elements holding last good values: a field may read more on the whole page (a promo list beside it).
  const wanted = new Set(leaves(expected).map(norm));
  const read = whole.structure.flatMap((field) => selectedBy(field, doc));
  const holding = read.filter((element) => wanted.has(norm(textOf(element))));
  const reads = (selector: string) => recoveryOf(expected, extractedBy({ selector, structure: whole.structure }, html, pageUrl)).found;
  // From the innermost element holding them outwards: the first whose own selector (not one by its text) reads them all.
  for (let at: Element | null | undefined = commonAncestor(holding.length > 0 ? holding : read); at; at = parentElement(at)) {
    if (at.name === 'html' || at.name === 'body') break;
    const selector = uniqueSelector(at, doc);
    if (!selector.includes(':contains(') && reads(selector) >= whole.recovery.found) return selector;
  }
  return 'body';
}

/** Words of a button that loads more of a list (English and a few common languages). */
const LOAD_MORE =
  /^(load|show|see|view|get)\s+more\b|^more\s+(results|items|products|posts|articles|jobs)\b|^mehr\s+(laden|anzeigen)|^voir\s+plus|^cargar\s+más|^mostrar\s+más/i;

/**
 * A "Load more" button that matches nothing on the page any more: the one button (or link acting as one) that
 * says so by its text or label, when the page has exactly one. Several, or none: kept.
 */
export function repairedLoadMore(config: Pick<ApiConfig, 'pagination'>, html: string): ApiConfig['pagination'] {
  const pagination = config.pagination;
  if (pagination?.loadMore === undefined) return pagination;
  let doc;
  try {
    doc = parseHtml(html);
    if (selectIn(pagination.loadMore, doc).length > 0) return pagination;
  } catch {
    return pagination;
  }
  const buttons = allElements(doc.children).filter((element) => {
    const clickable = element.name === 'button' || element.attribs.role === 'button' || (element.name === 'a' && !element.attribs.href);
    const said = `${element.attribs['aria-label'] ?? ''} ${textOf(element)}`.replace(/\s+/g, ' ').trim();
    return clickable && (LOAD_MORE.test(said) || LOAD_MORE.test(textOf(element).trim()));
  });
  if (buttons.length !== 1) return pagination;
  return { ...pagination, loadMore: uniqueSelector(buttons[0]!, doc) };
}
