import type { IncomingMessage } from 'node:http';
import type { RouteHandler } from '../site.js';

/**
 * A page guarded like a cheap anti-bot filter: it answers 403 to clients that do not look like a browser
 * (no Accept-Language, or a User-Agent that is not a `Mozilla/…` browser string) and serves data otherwise.
 * Scraper 2's generated browser headers get through; a bare HTTP client does not.
 */
export function looksLikeBrowser(req: IncomingMessage): boolean {
  const userAgent = req.headers['user-agent'] ?? '';
  const acceptLanguage = req.headers['accept-language'] ?? '';
  const accept = req.headers.accept ?? '';
  return userAgent.startsWith('Mozilla/') && acceptLanguage !== '' && accept.includes('text/html');
}

/** Tokens already refused once by `/fingerprint/flaky.html`. */
const refusedTokens = new Set<string>();

export const fingerprintRoutes: Record<string, RouteHandler> = {
  // Refuses the first request for each `?token=` with the status in `?status=` (429 by default), then serves:
  // a source that rate-limits a burst, for testing retries with backoff.
  '/fingerprint/flaky.html': (req, res) => {
    const query = new URL(req.url ?? '/', 'http://fixture').searchParams;
    const token = query.get('token') ?? '';
    if (!refusedTokens.has(token)) {
      refusedTokens.add(token);
      res.writeHead(Number(query.get('status') ?? '429'), { 'content-type': 'text/html; charset=utf-8', 'retry-after': '0' });
      res.end('<!doctype html><title>Slow down</title><h1>Too many requests</h1>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Flaky</title><h1>Served on a retry</h1>');
  },
  '/fingerprint/guarded.html': (req, res) => {
    if (!looksLikeBrowser(req)) {
      res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Forbidden</title><h1>Access denied</h1><p>Automated clients are not allowed.</p>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Guarded catalogue</title></head><body>' +
        '<h1>Guarded catalogue</h1><ul class="items">' +
        '<li class="item"><span class="name">Lamp</span> <span class="price">19.99</span></li>' +
        '<li class="item"><span class="name">Chair</span> <span class="price">49.00</span></li>' +
        '</ul></body></html>',
    );
  },
};
