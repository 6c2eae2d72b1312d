import { nextLinkHref } from '../engine/next-link.js';
import { allElements, attr, classesOf, parentElement, textOf, type Document, type Element } from './dom.js';
import { uniqueSelector } from './selectors.js';

/**
 * A recognisable next-page link on a generated page (docs/pagination.md, "generate"), for `generate` to propose
 * `pagination.next`: `rel="next"` first (an `<a>`, or the `<link>` in the head that search engines read), then
 * a pager's link that says "next" by its text, its label or its class. The selector offered must find the same
 * address at retrieval (the next-link reader runs on it here), stay on the page's site and not point at the
 * page itself. Learnt from Maxun's clickNext and the pagers peers' users paste: `rel=next`, `.pagination
 * .next`, `aria-label="Next page"`, "Next ›".
 */
export interface NextLinkProposal {
  /** The selector for pagination.next. */
  next: string;
  /** Where it leads on this page (shown at the review). */
  href: string;
}

const NEXT_WORDS =
  /^(next|next page|next ›|next »|next →|›|»|→|>|more|older|older posts|suivant|suivante|siguiente|weiter|nächste|volgende|successivo|próximo|次へ)$/i;
const NEXT_LABEL = /\bnext\b/i;
const NEXT_CLASS = /(^|[-_])next($|[-_])/i;

/** Selectors a user would write for the usual pagers, tried before a structural one. */
const WELL_KNOWN = [
  'a[rel~="next"]',
  'link[rel~="next"]',
  '.pagination a.next',
  '.pagination .next a',
  'li.next > a',
  'a.next',
  'a[aria-label="Next page"]',
  'a[aria-label="Next"]',
];

function saysNext(element: Element): boolean {
  const text = textOf(element);
  if (NEXT_WORDS.test(text)) return true;
  const label = attr(element, 'aria-label') ?? attr(element, 'title') ?? '';
  if (NEXT_LABEL.test(label) && !/\bprev/i.test(label)) return true;
  const parent = parentElement(element);
  return [...classesOf(element), ...(parent ? classesOf(parent) : [])].some((name) => NEXT_CLASS.test(name));
}

function sameSiteOther(href: string, pageUrl: string): boolean {
  try {
    const target = new URL(href);
    const page = new URL(pageUrl);
    return target.origin === page.origin && `${target.pathname}${target.search}` !== `${page.pathname}${page.search}`;
  } catch {
    return false;
  }
}

/** The next link of the page, with a selector that reads it back, or null when the page has none recognisable. */
export function proposeNextLink(doc: Document, pageUrl: string): NextLinkProposal | null {
  for (const selector of WELL_KNOWN) {
    const href = nextLinkHref(doc, selector, pageUrl);
    if (href && sameSiteOther(href, pageUrl)) return { next: selector, href };
  }
  for (const element of allElements(doc.children)) {
    if (element.name !== 'a' || !attr(element, 'href') || !saysNext(element)) continue;
    const selector = uniqueSelector(element, doc);
    const href = nextLinkHref(doc, selector, pageUrl);
    if (href && sameSiteOther(href, pageUrl)) return { next: selector, href };
  }
  return null;
}

/** pagination.next for a generated structure: only when it has a list to merge the pages into. */
export function paginationProposal(structure: ReadonlyArray<{ type: string }>, doc: Document, pageUrl: string): NextLinkProposal | null {
  return structure.some((field) => field.type === 'array') ? proposeNextLink(doc, pageUrl) : null;
}
