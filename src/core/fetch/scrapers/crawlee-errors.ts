import { isPagejsonError, PagejsonError } from '../../shared/index.js';
import { statusFacts } from '../net/block-page.js';
import { notHtmlError } from '../net/html-response.js';

/**
 * got (scraper 2) and Playwright/Chromium (scraper 3) report failures as plain errors with messages meant for
 * a log. This maps them onto the FETCH_ family, with the short reasons the daemon shows in `source page could
 * not be fetched: <reason>`.
 */

export function timeoutError(timeoutMs: number): PagejsonError {
  return new PagejsonError('FETCH_TIMEOUT', `timed out after ${timeoutMs} ms`, {
    context: { timeoutMs },
    hint: 'the source is slow or hung; raise fetch.timeoutMs in pagejson.json if it is just slow',
  });
}

export function abortedError(): PagejsonError {
  return new PagejsonError('FETCH_FAILED', 'the fetch was aborted', { hint: 'the caller went away or the process is shutting down' });
}

export function closedError(): PagejsonError {
  return new PagejsonError('FETCH_FAILED', 'the scraper is closed', { hint: 'create a new scraper pool' });
}

/** A renderer that died under the page (out of memory past the renderer heap cap, or killed). */
export function pageCrashedError(cause?: unknown): PagejsonError {
  return new PagejsonError('FETCH_FAILED', 'the page crashed in Chromium', {
    cause,
    hint: 'the page used more memory than a renderer may (docs/security.md), or Chromium was killed; try scraper 1 or 2 if the data is in the HTML',
  });
}

export function statusError(status: number, headers?: Readonly<Record<string, string | string[] | undefined>>): PagejsonError {
  return new PagejsonError('FETCH_STATUS', `HTTP ${status}`, {
    // Retry-After and cf-mitigated: the pool reads a 429's pause and a marked challenge from them (net/source-screen.ts).
    context: { status, ...(headers ? statusFacts(headers) : {}) },
    hint:
      status === 403 || status === 429
        ? 'the source refuses automated clients; try another scraper'
        : 'check that the source URL still exists',
  });
}

export function tooManyRedirectsError(): PagejsonError {
  return new PagejsonError('FETCH_TOO_MANY_REDIRECTS', 'too many redirects', {
    hint: 'the source redirects in a loop or more than 5 times',
  });
}

/**
 * Statuses worth another try: the source is overloaded or blocked this fingerprint/session. A 429 only once
 * its Retry-After has passed (crawlee-common.ts, retryWaitMs; docs/block-pages.md).
 */
export function isRetryableStatus(status: number): boolean {
  return status === 403 || status === 429 || status >= 500;
}

interface ErrorLike {
  message?: string;
  code?: string;
  name?: string;
  cause?: unknown;
}

/** The status a Crawlee error was raised for, if any: `500 - Internal Server Error: …`, `… received 403 status code`. */
export function statusOfCrawleeError(error: unknown): number | undefined {
  const message = (error as ErrorLike | undefined)?.message ?? '';
  const leading = /^(\d{3}) - /.exec(message);
  if (leading) return Number(leading[1]);
  const blocked = /received (\d{3}) status code/.exec(message);
  if (blocked) return Number(blocked[1]);
  return undefined;
}

/** A PagejsonError hidden in an error's cause chain (got wraps errors thrown from hooks and lookups). */
function findPagejsonError(error: unknown): PagejsonError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    if (isPagejsonError(current)) return current;
    current = (current as ErrorLike).cause;
  }
  return undefined;
}

export function toFetchError(error: unknown, timeoutMs: number): PagejsonError {
  const known = findPagejsonError(error);
  if (known) return known;
  const { message = String(error), code, name } = (error ?? {}) as ErrorLike;
  const status = statusOfCrawleeError(error);
  if (status !== undefined) return statusError(status);
  if (name === 'MaxRedirectsError' || code === 'ERR_TOO_MANY_REDIRECTS' || message.includes('net::ERR_TOO_MANY_REDIRECTS'))
    return tooManyRedirectsError();
  // Chromium's network errors (`page.goto: net::ERR_CONNECTION_RESET at …`).
  const chromiumCode = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (chromiumCode === 'ERR_CONTENT_DECODING_FAILED') {
    return new PagejsonError('FETCH_FAILED', `could not decompress the response (${chromiumCode})`, {
      context: { code: chromiumCode },
      cause: error,
    });
  }
  if (chromiumCode && chromiumCode !== 'ERR_ABORTED') {
    return new PagejsonError('FETCH_FAILED', `connection failed (${chromiumCode})`, {
      context: { code: chromiumCode },
      cause: error,
      hint: 'check that the source is reachable from this machine',
    });
  }
  if (/\b(Page|Target) crashed\b/.test(message)) return pageCrashedError(error);
  if (/timed out|timeout/i.test(message) || name === 'TimeoutError') return timeoutError(timeoutMs);
  if (/served Content-Type/.test(message)) return notHtmlError();
  if (code?.startsWith('Z_') || code === 'ERR_BROTLI_DECOMPRESSION_FAILED') {
    return new PagejsonError('FETCH_FAILED', `could not decompress the response (${code})`, {
      context: { code },
      cause: error,
      hint: 'the source sent a corrupt compressed body',
    });
  }
  const reason = code ? `connection failed (${code})` : (message.split('\n')[0]?.slice(0, 200) ?? 'unknown error');
  return new PagejsonError('FETCH_FAILED', reason, {
    context: { code },
    cause: error,
    hint: 'check that the source is reachable from this machine',
  });
}
