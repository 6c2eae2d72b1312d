import { isPagejsonError, PagejsonError } from '../../shared/index.js';
import { parseRetryAfter } from '../net/origin-backoff.js';
import { SCRAPER_CAPABILITIES, type ScraperName } from './types.js';

/** What scrapers 2 and 3 share: retry pacing and input checks. */

/** Exponential backoff before a retry: 250 ms, 500 ms, 1 s… always cut by the fetch's deadline. */
export function retryBackoffMs(retryCount: number): number {
  return 250 * 2 ** Math.min(retryCount, 5);
}

/**
 * The wait before retrying a failed attempt: the backoff, or for a 429 its Retry-After when longer. A 429
 * without Retry-After is not retried (Infinity): the source asked to be left alone, and the pool pauses its
 * origin (docs/block-pages.md).
 */
export function retryWaitMs(error: unknown, retryCount: number): number {
  const backoff = retryBackoffMs(retryCount);
  if (!isPagejsonError(error) || error.context.status !== 429) return backoff;
  const retryAfter = error.context.retryAfter;
  const asked = parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : undefined, Date.now());
  return asked === undefined ? Number.POSITIVE_INFINITY : Math.max(backoff, asked);
}

/** Waits out a retry's backoff, or less when the fetch is aborted meanwhile (deadline, caller, close). */
export function waitForBackoff(ms: number, abort: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    abort.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export function sessionUnsupportedError(name: ScraperName): PagejsonError {
  return new PagejsonError('USAGE', `scraper ${SCRAPER_CAPABILITIES[name].number} (${name}) does not support Use session`, {
    context: { scraper: name },
    hint: 'use scraper 1 (http) for session-protected pages, or turn session off',
  });
}

export function sourceUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PagejsonError('FETCH_FAILED', `invalid URL ${raw}`, { hint: 'the source URL must be an absolute http(s) URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PagejsonError('FETCH_FAILED', `unsupported protocol ${url.protocol}`, { hint: 'the source URL must use http or https' });
  }
  return url;
}
