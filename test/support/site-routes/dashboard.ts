import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteHandler } from '../site.js';

/**
 * Pages of the dashboard tests. `/shop/<category>/items?page=N` lists three items whose names say the
 * category and page, so a URL place turned into a variable visibly changes what is fetched; its <title> and
 * <h1> differ, so a selector moved from one to the other shows in the data. `/xss.html`
 * holds markup as text: its heading reads `<img src=x onerror=alert(1)>` (escaped in the source), which the
 * dashboard must show as those characters and never run.
 */
export const XSS_TEXT = '<img src=x onerror=alert(1)>';

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function shop(category: string): RouteHandler {
  return (req: IncomingMessage, res: ServerResponse) => {
    const page = new URL(req.url ?? '/', 'http://fixture').searchParams.get('page') ?? '1';
    const items = [1, 2, 3]
      .map(
        (n) =>
          `<li class="item"><span class="name">${escape(`${category} item ${n} (page ${page})`)}</span> <span class="price">${n * 10}.50</span></li>`,
      )
      .join('');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>${escape(category)} shop | Fixture</title></head><body><h1>${escape(category)} shop</h1><ul class="items">${items}</ul></body></html>`,
    );
  };
}

export const dashboardRoutes: Record<string, RouteHandler> = {
  // A 6 MB page (any query string): what the dashboard's page cache must bound by size, not by count alone.
  '/dashboard/big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><body><h1>Big</h1><p>${'x'.repeat(6_000_000)}</p></body></html>`);
  },
  // 5,000 small tables (85,000 elements, 1 MB): well over ten seconds of work for the heuristic model, whose
  // table selectors (`body > table:nth-of-type(k)`) cost css-select a count of the siblings before each
  // table (docs/heuristic.md, "Known limits"). What the generation budgets are tested on.
  '/hostile/many-tables': (_req, res) => {
    const table = (i: number) =>
      `<table><tr><th>Name</th><th>Value</th><th>Note</th></tr><tr><td>a${i}</td><td>${i}</td><td>x</td></tr><tr><td>b${i}</td><td>${i + 1}</td><td>y</td></tr><tr><td>c${i}</td><td>${i + 2}</td><td>z</td></tr></table>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><body><h1>Many tables</h1>${Array.from({ length: 5_000 }, (_, i) => table(i)).join('')}</body></html>`);
  },
  '/shop/tools/items': shop('tools'),
  '/shop/garden/items': shop('garden'),
  '/xss.html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Markup as text</title></head><body><h1>${escape(XSS_TEXT)}</h1><p class="kind">${escape('"><script>alert(2)</script>')}</p></body></html>`,
    );
  },
};
