import type { ErrorCode } from '../../src/core/shared/errors.js';

/**
 * The fault table every scraper is tested against (test/integration/scrapers-faults-*.test.ts). Each row is
 * a route of test/support/site-routes/faults.ts with the typed error a scraper must throw, and a pattern
 * for the short reason that ends up in `source page could not be fetched: <reason>`.
 *
 * Scrapers run these with a short `timeoutMs` (about 1.5 s), a small `maxBytes` (1 MiB) and
 * `allowPrivateNetworks: true` (the fixture site is on 127.0.0.1); link-local addresses such as
 * 169.254.169.254 stay refused even then.
 */
export interface FaultCase {
  path: string;
  code: ErrorCode;
  reason: RegExp;
  /** What the source does wrong, for test names. */
  description: string;
}

export const FAULT_CASES: readonly FaultCase[] = [
  { path: '/faults/hang', code: 'FETCH_TIMEOUT', reason: /^timed out after \d+ ms$/, description: 'never answers' },
  {
    path: '/faults/drip',
    code: 'FETCH_TIMEOUT',
    reason: /^timed out after \d+ ms$/,
    description: 'trickles a byte at a time past the deadline',
  },
  { path: '/faults/reset', code: 'FETCH_FAILED', reason: /connection/, description: 'resets the connection mid-response' },
  { path: '/faults/500', code: 'FETCH_STATUS', reason: /^HTTP 500$/, description: 'answers 500' },
  { path: '/faults/404', code: 'FETCH_STATUS', reason: /^HTTP 404$/, description: 'answers 404' },
  { path: '/faults/lying-length', code: 'FETCH_FAILED', reason: /./, description: 'announces more bytes than it sends, then closes' },
  { path: '/faults/huge', code: 'FETCH_TOO_LARGE', reason: /^response is larger than \d+ bytes$/, description: 'streams 50 MB' },
  {
    path: '/faults/huge-announced',
    code: 'FETCH_TOO_LARGE',
    reason: /^response is larger than \d+ bytes$/,
    description: 'announces 50 MB',
  },
  { path: '/faults/redirect-loop', code: 'FETCH_TOO_MANY_REDIRECTS', reason: /redirect/, description: 'redirects to itself' },
  {
    path: '/faults/redirect-chain',
    code: 'FETCH_TOO_MANY_REDIRECTS',
    reason: /^too many redirects$/,
    description: 'redirects without end',
  },
  {
    path: '/faults/redirect-metadata',
    code: 'FETCH_BLOCKED_ADDRESS',
    reason: /^address 169\.254\.169\.254 is not public$/,
    description: 'redirects to the cloud metadata address',
  },
  { path: '/faults/not-html', code: 'FETCH_NOT_HTML', reason: /^content type application\/pdf is not HTML$/, description: 'serves a PDF' },
  { path: '/faults/bad-gzip', code: 'FETCH_FAILED', reason: /decompress/, description: 'sends garbage labelled gzip' },
];

/** Options that make every fault end quickly; scrapers under test are created with these. */
export const FAULT_SCRAPER_OPTIONS = {
  timeoutMs: 1_500,
  maxBytes: 1024 * 1024,
  allowPrivateNetworks: true,
  perOriginConcurrency: 4,
} as const;
