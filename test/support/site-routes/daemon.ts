import type { RouteHandler } from '../site.js';

/**
 * Routes for the daemon's tests: a page that echoes its `name` query value (dynamic variables reach the
 * source), a page that takes `ms` milliseconds (load and shutdown tests; with `fail=1` it then fails), and a page with nothing to extract.
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(res: Parameters<RouteHandler>[1], body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><title>Daemon fixture</title></head><body>${body}</body></html>`);
}

export const daemonRoutes: Record<string, RouteHandler> = {
  '/daemon/echo': (req, res) => {
    const name = new URL(req.url ?? '/', 'http://fixture').searchParams.get('name') ?? '';
    page(res, `<h1>${escapeHtml(name)}</h1><p class="kind">echo</p>`);
  },
  '/daemon/slow': async (req, res) => {
    const ms = Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('ms') ?? '100');
    await new Promise((resolve) => setTimeout(resolve, Number.isFinite(ms) ? Math.min(ms, 10_000) : 100));
    // `fail=1`: a slow source that then fails (an answer that is an error when it comes).
    if (new URL(req.url ?? '/', 'http://fixture').searchParams.get('fail') === '1') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('broken');
      return;
    }
    page(res, `<h1>Slow page</h1><p class="kind">slow</p>`);
  },
  '/daemon/empty': (_req, res) => {
    page(res, '<div class="nothing-here"></div>');
  },
};
