import type { ApiConfig } from '../config/index.js';
import { nextLinkHref, parseHtml, proposeNextLink } from '../extract/index.js';

/**
 * What a config uses to reach its data is repaired with its fields (issue 47 item 2): a paginated list whose
 * `pagination.next` finds no next link on the page any more (`a.next` after the pager became `a.pager__next`)
 * would read its first page only, 9 products of 24, and nothing would say so. When the old selector finds
 * nothing and the page has a recognisable next link (the one `generate` proposes, src/core/extract/page/
 * next-link-proposal.ts), the repair points at it; when the old one still leads somewhere, it is kept.
 */
export function repairedPagination(config: Pick<ApiConfig, 'pagination'>, html: string, pageUrl: string): ApiConfig['pagination'] {
  const pagination = config.pagination;
  if (!pagination?.next) return pagination;
  let doc;
  try {
    doc = parseHtml(html);
    if (nextLinkHref(doc, pagination.next, pageUrl)) return pagination;
  } catch {
    return pagination; // a selector that no longer compiles is the user's to fix (edit), not guessed here
  }
  const proposal = proposeNextLink(doc, pageUrl);
  return proposal ? { ...pagination, next: proposal.next } : pagination;
}
