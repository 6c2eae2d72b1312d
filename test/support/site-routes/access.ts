import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FixtureSite, RouteHandler } from '../site.js';

/**
 * Pages behind an API token or a cookie (docs/access.md): `/access/bearer.html` answers 401 unless
 * `Authorization: Bearer <token>`, `/access/cookie.html` 403 unless the cookie `member=<token>`, with the
 * token in `site.state` (`access.token`, default below) so a test can change it. `/access/redirect-away`
 * sends the client to `site.state`'s `access.away` (a page of another origin), `/access/redirect-home` to
 * the bearer page on the same origin. `/access/echo.html` shows the request's headers. `/access/paged.html?page=N`
 * is a list of three pages behind the same token, each linking to the next (`a[rel=next]`).
 */
export const ACCESS_TOKEN = 'fixture-token-7f3a9c';

function token(site: FixtureSite): string {
  return site.state.get('access.token') ?? ACCESS_TOKEN;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const MEMBERS_PAGE = `<!doctype html>
<html><head><title>Invoices</title></head>
<body>
  <h1>Invoices</h1>
  <ul class="invoices">
    <li class="invoice"><span class="number">INV-1</span> <span class="amount">120.00</span></li>
    <li class="invoice"><span class="number">INV-2</span> <span class="amount">75.50</span></li>
  </ul>
</body></html>`;

function page(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  const pairs = req.headers.cookie?.split(';').map((part) => part.trim()) ?? [];
  return pairs.find((pair) => pair.startsWith(`${name}=`))?.slice(name.length + 1);
}

export const accessRoutes: Record<string, RouteHandler> = {
  '/access/bearer.html': (req, res, site) => {
    if (req.headers.authorization !== `Bearer ${token(site)}`) {
      res.writeHead(401, { 'content-type': 'text/html; charset=utf-8', 'www-authenticate': 'Bearer realm="fixture"' });
      res.end('<!doctype html><title>Unauthorized</title><h1>Unauthorized</h1><p>Send an API token.</p>');
      return;
    }
    page(res, 200, MEMBERS_PAGE);
  },
  '/access/cookie.html': (req, res, site) => {
    if (cookieValue(req, 'member') !== token(site)) return page(res, 403, '<!doctype html><title>Forbidden</title><h1>Members only</h1>');
    page(res, 200, MEMBERS_PAGE);
  },
  '/access/redirect-away': (_req, res, site) => {
    res.writeHead(302, { location: site.state.get('access.away') ?? '/' }).end();
  },
  '/access/redirect-home': (_req, res) => {
    res.writeHead(302, { location: '/access/bearer.html' }).end();
  },
  '/access/paged.html': (req, res, site) => {
    if (req.headers.authorization !== `Bearer ${token(site)}`)
      return page(res, 401, '<!doctype html><title>Unauthorized</title><h1>Unauthorized</h1>');
    const number = Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('page') ?? '1');
    const next = number < 3 ? `<a rel="next" href="/access/paged.html?page=${number + 1}">Next</a>` : '';
    page(
      res,
      200,
      `<!doctype html><html><head><title>Invoices, page ${number}</title></head><body><ul class="invoices"><li class="invoice"><span class="number">P${number}-A</span></li><li class="invoice"><span class="number">P${number}-B</span></li></ul>${next}</body></html>`,
    );
  },
  '/access/echo.html': (req, res) => {
    page(
      res,
      200,
      `<!doctype html><html><head><title>Echo</title></head><body><pre id="headers">${escapeHtml(JSON.stringify(req.headers))}</pre></body></html>`,
    );
  },
};
