import type { ApiConfig } from '../core/config/schema.js';
import { paginationKind } from '../core/config/pagination.js';
import type { Extractor } from '../core/extract/workers/types.js';
import { mergePages, paginationListField } from '../core/extract/page-merge.js';
import type { StoredSnapshot } from '../core/health/snapshots.js';
import { paginate, type PageRun } from '../core/retrieval/paginate.js';
import { PagejsonError } from '../core/shared/errors.js';

/**
 * `pagejson test`'s extraction of a snapshot, offline: its first page with the current config, and for a
 * paginated config (docs/pagination.md) the pages it keeps, through the same page loop as a retrieval, with
 * the snapshot's pages standing in for the site: a page the loop asks for that the snapshot does not keep is
 * the list's end. So a changed next-link selector, list field or limit shows as changed data, as it would live.
 * Rounds of load more and scroll (one browser page read several times) are merged in the order kept.
 */
export async function replaySnapshot(config: ApiConfig, snapshot: StoredSnapshot, extractor: Extractor): Promise<Record<string, unknown>> {
  const next = config.pagination?.next;
  const extract = async (html: string, finalUrl: string): Promise<PageRun> => {
    const outcome = await extractor.extract({
      config: { apiId: config.apiId, revision: config.revision, selector: config.selector, structure: config.structure },
      html,
      finalUrl,
      ...(next !== undefined ? { nextLink: next } : {}),
    });
    return { data: outcome.data, finalUrl, nextHref: outcome.nextHref };
  };
  const first = await extract(snapshot.html, snapshot.record.url);
  const pagination = config.pagination;
  if (!pagination) return first.data;
  const kind = paginationKind(pagination);
  if (kind === 'loadMore' || kind === 'scroll') return mergeRounds(config, first.data, snapshot, extract);
  const stored = new Map(snapshot.morePages.map((page) => [page.url, page]));
  const outcome = await paginate(
    config,
    snapshot.record.variables,
    { url: snapshot.record.url, page: first },
    async (url) => {
      const page = stored.get(url);
      if (!page) throw new PagejsonError('FETCH_STATUS', 'HTTP 404', { context: { status: 404, url } });
      return extract(page.html, page.finalUrl);
    },
    { concurrency: 1 },
  );
  return outcome.data;
}

async function mergeRounds(
  config: ApiConfig,
  first: Record<string, unknown>,
  snapshot: StoredSnapshot,
  extract: (html: string, finalUrl: string) => Promise<PageRun>,
): Promise<Record<string, unknown>> {
  const pagination = config.pagination!;
  const list = paginationListField(config.structure, pagination);
  if (list === undefined) return first;
  const merge = mergePages(first, { list, key: pagination.key, maxItems: pagination.maxItems });
  for (const page of snapshot.morePages.slice(0, pagination.maxPages - 1)) {
    if (merge.full) break;
    if (merge.add((await extract(page.html, page.finalUrl)).data) === 0) break;
  }
  return merge.data;
}
