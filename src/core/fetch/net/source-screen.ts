import { isPagejsonError } from '../../shared/index.js';
import type { FetchResult } from '../scrapers/types.js';
import { assertNotBlocked, blockByHeaders, blockedError } from './block-page.js';
import { createOriginBackoff, type OriginBackoff } from './origin-backoff.js';

/**
 * What the scraper pool does around every fetch of every scraper (docs/block-pages.md): an origin that answered
 * 429 is not asked again before its time (SOURCE_RATE_LIMITED at once), a 429 starts that pause, and a page
 * that is a block page (or a status error Cloudflare marks as a challenge) is SOURCE_BLOCKED, never a page.
 * So generation, retrieval, monitors, heal, validate --live and the editors' samples all see block pages as
 * errors, whichever scraper fetched them.
 */
export interface SourceScreen {
  /** Before a fetch (and again after waiting in the origin queue): fails while the origin is left alone. */
  before(origin: string, url: string): void;
  /** A fetched page, or SOURCE_BLOCKED. */
  after<T extends FetchResult>(page: T, origin: string, url: string): T;
  /** A failed fetch: a 429 becomes SOURCE_RATE_LIMITED (and pauses the origin), a marked challenge SOURCE_BLOCKED. */
  failed(error: unknown, origin: string, url: string): unknown;
  readonly backoff: OriginBackoff;
}

export function createSourceScreen(now?: () => number): SourceScreen {
  const backoff = createOriginBackoff(now);
  return {
    backoff,
    before(origin, url) {
      backoff.check(origin, url);
    },
    after(page, origin, url) {
      backoff.answered(origin);
      return assertNotBlocked(page, url);
    },
    failed(error, origin, url) {
      if (!isPagejsonError(error) || error.code !== 'FETCH_STATUS') return error;
      const { status, retryAfter, cfMitigated } = error.context;
      if (status === 429) return backoff.limited(origin, url, typeof retryAfter === 'string' ? retryAfter : undefined);
      const verdict = typeof cfMitigated === 'string' ? blockByHeaders({ 'cf-mitigated': cfMitigated }) : undefined;
      return verdict ? blockedError(verdict, url) : error;
    },
  };
}
