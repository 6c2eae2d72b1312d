import type { RouteHandler } from '../site.js';

/**
 * A page whose data exists only after its script ran: the HTML ships an empty list, and a script fetches
 * `/js/data.json` after load and inserts the items (after a short delay, so a scraper that does not wait
 * for the network to settle sees nothing). Only scraper 3 (a real browser) can extract it.
 */
export const JS_ITEMS = ['Alpha widget', 'Beta widget', 'Gamma widget'];

const RENDERED_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Rendered by JavaScript</title></head>
<body>
<h1>Rendered list</h1>
<ul id="items"></ul>
<script>
window.addEventListener('load', () => {
  setTimeout(async () => {
    const response = await fetch('/js/data.json');
    const items = await response.json();
    const list = document.getElementById('items');
    for (const item of items) {
      const li = document.createElement('li');
      li.className = 'item';
      li.textContent = item.name;
      list.appendChild(li);
    }
  }, 50);
});
</script>
</body></html>
`;

/**
 * A single-page app as frameworks ship one: an empty mount point and a script file that builds the catalogue
 * into it. Scraper 1 reads only the page's title; the CLI recognises the shell and suggests scraper 3.
 */
const APP_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Widget shop</title><link rel="stylesheet" href="/js/app.css"></head>
<body><div id="root"></div><script src="/js/app.js"></script></body></html>
`;
const APP_SCRIPT = `
const root = document.getElementById('root');
root.innerHTML = '<h1>Widget shop</h1><ul class="products">' +
  ${JSON.stringify(JS_ITEMS)}.map((name, i) => '<li class="product"><span class="name">' + name + '</span> <span class="price">' + (9.5 + i) + '</span></li>').join('') +
  '</ul>';
`;

export const jsRoutes: Record<string, RouteHandler> = {
  '/js/app.html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(APP_PAGE);
  },
  '/js/app.js': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
    res.end(APP_SCRIPT);
  },
  '/js/rendered.html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(RENDERED_PAGE);
  },
  '/js/data.json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(JS_ITEMS.map((name) => ({ name }))));
  },
};
