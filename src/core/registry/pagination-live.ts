import { type ApiConfig, type ConfigProblem } from '../config/index.js';
import { nextLinkHref, selectIn, type Document } from '../extract/index.js';

/**
 * `validate --live` on a paginated config (docs/pagination.md): the next link the page has, and the "Load more"
 * button before any click. Warnings: a list's last page has no next link, and a button may come with a script.
 */
export function livePaginationProblems(config: ApiConfig, doc: Document, pageUrl: string, file: string): ConfigProblem[] {
  const pagination = config.pagination;
  if (pagination?.next !== undefined) {
    const href = nextLinkHref(doc, pagination.next, pageUrl);
    if (href === null) {
      return [
        {
          file,
          path: '$.pagination.next',
          message: `"${pagination.next}" finds no next-page link (an element with an http(s) href) on ${pageUrl}`,
          hint: 'fix the selector (e.g. a[rel="next"]), or check that this page is not the list\'s last',
          severity: 'warning',
        },
      ];
    }
    if (new URL(href).origin !== new URL(pageUrl).origin) {
      return [
        {
          file,
          path: '$.pagination.next',
          message: `the next link on ${pageUrl} leads to another site (${new URL(href).origin}), which pagination does not follow`,
          hint: "select the pager's own link to the next page of this site",
          severity: 'warning',
        },
      ];
    }
  }
  if (pagination?.loadMore !== undefined && selectIn(pagination.loadMore, doc).length === 0) {
    return [
      {
        file,
        path: '$.pagination.loadMore',
        message: `"${pagination.loadMore}" matches nothing on ${pageUrl} as it loads`,
        hint: 'the button may be added by a script (scraper 3 renders it); check the selector on the rendered page',
        severity: 'warning',
      },
    ];
  }
  return [];
}
