import { gzipSync } from 'node:zlib';
import type { RouteHandler } from '../site.js';

/**
 * Routes for jobs (docs/jobs.md): an item page per `id` (`404` answers 404, `slow` takes `ms`), a list page
 * linking items 1–5 (a `from` job's list), a sitemap of items 1–`n` plus a page that fits no template, and a
 * sitemap index naming a gzipped copy of it. Politeness: `/robots.txt` serves `site.state.get('robots')` (404
 * without it), and `/jobs/polite?id=` takes 30 ms, keeps the most requests it had at once in `polite-max` and the
 * ids asked in `polite-ids` (`ms` sets the time taken), and answers an id starting `busy` with 429 (`Retry-After: 1`) the first time.
 */
function page(res: Parameters<RouteHandler>[1], body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><title>Jobs fixture</title></head><body>${body}</body></html>`);
}

const params = (req: Parameters<RouteHandler>[0]) => new URL(req.url ?? '/', 'http://fixture').searchParams;

function sitemap(origin: string, count: number): string {
  const urls = Array.from({ length: count }, (_, index) => `<url><loc>${origin}/jobs/item?id=${index + 1}&amp;x=1</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}<url><loc>${origin}/jobs/about.html</loc></url></urlset>`;
}

const originOf = (req: Parameters<RouteHandler>[0]) => `http://${req.headers.host}`;

let politeInFlight = 0;

export const jobRoutes: Record<string, RouteHandler> = {
  '/robots.txt': (_req, res, site) => {
    const robots = site.state.get('robots');
    res.writeHead(robots === undefined ? 404 : 200, { 'content-type': 'text/plain' });
    res.end(robots ?? 'not found');
  },
  '/jobs/polite': async (req, res, site) => {
    const id = (params(req).get('id') ?? '').replace(/[^A-Za-z0-9_-]/g, '');
    const asked = site.state.get('polite-ids') ?? '';
    site.state.set('polite-ids', `${asked}${id} `);
    if (id.startsWith('busy') && !asked.split(' ').includes(id)) {
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' });
      res.end('slow down');
      return;
    }
    politeInFlight += 1;
    site.state.set('polite-max', String(Math.max(Number(site.state.get('polite-max') ?? 0), politeInFlight)));
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number(params(req).get('ms') ?? 30), 5_000)));
    politeInFlight -= 1;
    page(res, `<h1>Item ${id}</h1><p class="kind">polite</p>`);
  },
  '/jobs/item': async (req, res) => {
    const id = params(req).get('id') ?? '';
    if (id === '404') {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not found</h1>');
      return;
    }
    if (id.startsWith('slow')) await new Promise((resolve) => setTimeout(resolve, Math.min(Number(params(req).get('ms') ?? 200), 5_000)));
    page(res, `<h1>Item ${id.replace(/[^A-Za-z0-9 _-]/g, '')}</h1><p class="kind">item</p>`);
  },
  '/jobs/list.html': (_req, res) => {
    const items = [1, 2, 3, 4, 5].map(
      (n) => `<li class="entry"><a href="/jobs/item?id=${n}">Entry ${n}</a><span class="rank">${n}</span></li>`,
    );
    page(res, `<h1>List</h1><ul class="entries">${items.join('')}</ul>`);
  },
  '/jobs/sitemap.xml': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(sitemap(originOf(req), Number(params(req).get('n') ?? 20)));
  },
  '/jobs/sitemap.xml.gz': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(gzipSync(sitemap(originOf(req), Number(params(req).get('n') ?? 20))));
  },
  '/jobs/sitemap-index.xml': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0"?><sitemapindex><sitemap><loc>${originOf(req)}/jobs/sitemap.xml.gz?n=30</loc></sitemap></sitemapindex>`);
  },
};
