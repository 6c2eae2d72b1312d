import type { RouteHandler } from '../site.js';

/**
 * Hostile pages for the hardening tests (issue 16): a page nested far deeper than any browser nests, and an
 * ordinary-looking flat list long enough that an allowed but quadratic selector (`li:nth-last-of-type(3)`)
 * runs for many seconds: the kinds of page that used to stop the daemon's event loop.
 */
function html(res: Parameters<RouteHandler>[1], body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><title>Hostile fixture</title></head><body>${body}</body></html>`);
}

export const hostileRoutes: Record<string, RouteHandler> = {
  // 132 KB of nesting, as reported: 26,000 levels (`?levels=N` for fewer or more, at most 100,000).
  '/hostile/nested': (req, res) => {
    const levels = Math.min(Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('levels') ?? '26000') || 26_000, 100_000);
    html(res, `<h1>Nested</h1>${'<div>'.repeat(levels)}deep${'</div>'.repeat(levels)}`);
  },
  '/hostile/siblings': (req, res) => {
    const n = Math.min(Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('n') ?? '40000') || 40_000, 100_000);
    html(res, `<h1>Many items</h1><ul>${'<li>item</li>'.repeat(n)}</ul>`);
  },
  // One item at the first request, 40,000 at every later one: a page that breaks its endpoint (nothing for
  // `li:nth-last-of-type(3)`) and then holds the repair that follows, whose fetch comes second.
  '/hostile/grows': (_req, res, site) =>
    html(res, `<h1>Many items</h1><ul>${'<li>item</li>'.repeat(site.hitCount('/hostile/grows') === 1 ? 1 : 40_000)}</ul>`),
};
