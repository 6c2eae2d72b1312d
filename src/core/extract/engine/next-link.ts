import { compileSelector, documentBaseUrl, type Document } from './dom.js';

/** Longest next-page address followed: a page cannot make pagination carry megabytes of URL. */
const MAX_NEXT_URL_LENGTH = 2_048;

/**
 * The address of the next page (pagination.next, docs/pagination.md): the `href` of the first element the
 * selector matches in the whole document (pagers usually sit outside the config's section) that has one,
 * resolved against the document's base. Only http(s) addresses count: `#`, `javascript:` and the like are
 * no next page. null when there is none.
 */
export function nextLinkHref(doc: Document, selector: string, finalUrl: string): string | null {
  const base = documentBaseUrl(doc, finalUrl);
  for (const element of compileSelector(selector).select(doc)) {
    const href = element.attribs.href?.trim();
    if (!href || href.startsWith('#')) continue;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    return url.href.length <= MAX_NEXT_URL_LENGTH ? url.href : null;
  }
  return null;
}
