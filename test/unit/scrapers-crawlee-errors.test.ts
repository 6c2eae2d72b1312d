import { describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { isRetryableStatus, statusOfCrawleeError, toFetchError } from '../../src/core/fetch/scrapers/crawlee-errors.js';

/** Crawlee, got and Chromium failures mapped onto the FETCH_ family with the short reasons the daemon shows. */
describe('toFetchError', () => {
  const cases: Array<[string, unknown, string, string | RegExp]> = [
    ['Crawlee 5xx', new Error('500 - Internal Server Error: <h1>oops'), 'FETCH_STATUS', 'HTTP 500'],
    ['Crawlee blocked status', new Error('Request blocked - received 429 status code.'), 'FETCH_STATUS', 'HTTP 429'],
    [
      'got redirect limit',
      Object.assign(new Error('Redirected 5 times. Aborting.'), { name: 'MaxRedirectsError', code: 'ERR_TOO_MANY_REDIRECTS' }),
      'FETCH_TOO_MANY_REDIRECTS',
      'too many redirects',
    ],
    [
      'Chromium redirect limit',
      new Error('page.goto: net::ERR_TOO_MANY_REDIRECTS at http://x/'),
      'FETCH_TOO_MANY_REDIRECTS',
      'too many redirects',
    ],
    [
      'got timeout',
      Object.assign(new Error('Timeout awaiting request for 1500ms'), { name: 'TimeoutError' }),
      'FETCH_TIMEOUT',
      'timed out after 1500 ms',
    ],
    ['socket reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'FETCH_FAILED', 'connection failed (ECONNRESET)'],
    [
      'corrupt gzip',
      Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' }),
      'FETCH_FAILED',
      'could not decompress the response (Z_DATA_ERROR)',
    ],
    ['Chromium corrupt gzip', new Error('net::ERR_CONTENT_DECODING_FAILED'), 'FETCH_FAILED', /^could not decompress the response/],
    [
      'Chromium reset',
      new Error('page.goto: net::ERR_CONNECTION_RESET at http://x/'),
      'FETCH_FAILED',
      'connection failed (ERR_CONNECTION_RESET)',
    ],
    [
      'Crawlee content type refusal',
      new Error('Resource http://x/ served Content-Type application/pdf, but only text/html are allowed.'),
      'FETCH_NOT_HTML',
      /not HTML/,
    ],
  ];

  it.each(cases)('%s', (_name, error, code, reason) => {
    const mapped = toFetchError(error, 1500);
    expect(mapped.code).toBe(code);
    if (typeof reason === 'string') expect(mapped.message).toBe(reason);
    else expect(mapped.message).toMatch(reason);
  });

  it('keeps a PagejsonError found in the cause chain (got wraps errors thrown by hooks and lookups)', () => {
    const blocked = new PagejsonError('FETCH_BLOCKED_ADDRESS', 'address 169.254.169.254 is not public');
    const wrapped = Object.assign(new Error('RequestError'), { cause: blocked });
    expect(toFetchError(wrapped, 1500)).toBe(blocked);
  });

  it('retries only 403, 429 and 5xx', () => {
    expect([403, 429, 500, 503].map(isRetryableStatus)).toEqual([true, true, true, true]);
    expect([400, 401, 404, 410].map(isRetryableStatus)).toEqual([false, false, false, false]);
    expect(statusOfCrawleeError(new Error('anything else'))).toBeUndefined();
  });
});
