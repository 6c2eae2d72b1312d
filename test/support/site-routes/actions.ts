import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteHandler } from '../site.js';

/**
 * Pages as users meet them (issue 34), for scraper 3's actions and load-more/scroll rounds: a "Load more"
 * list, an infinite scroll, a consent wall, content that appears after the network went quiet, and a search
 * form. Scripts are inline and fetch only this site: everything works offline. Delays come from the query
 * (`?after=`, `?delay=`) so that each test waits no longer than it has to.
 */
export const ACTION_ITEMS = Array.from({ length: 40 }, (_unused, index) => `Item ${String(index + 1).padStart(2, '0')}`);
/** The books of the search page: the results are those whose title holds the query. */
export const SEARCH_BOOKS = ['A Light in the Attic', 'Sapiens', 'The Light Fantastic', 'Sharp Objects', 'Soumission', 'Light Years'];

function query(req: IncomingMessage): URLSearchParams {
  return new URL(req.url ?? '/', 'http://fixture').searchParams;
}

function num(params: URLSearchParams, name: string, fallback: number, max = 100_000): number {
  const value = Number(params.get(name));
  return Number.isInteger(value) && value >= 0 && value <= max ? value : fallback;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(res: ServerResponse, title: string, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>li.item{height:300px}</style></head><body><h1>${title}</h1>${body}</body></html>`,
  );
}

const itemsHtml = (names: readonly string[]): string =>
  names.map((name) => `<li class="item"><a href="/items/${encodeURIComponent(name)}">${name}</a></li>`).join('');

/**
 * `/actions/load-more.html?pages=3&size=3`: `size` items, and a `#more` button that appends the next `size`
 * (fetched from load-more.json) until `pages` pages are shown, then goes away. `end=stay` keeps the button
 * after the last page (clicking it then changes nothing), `end=disable` keeps it there disabled; `end=repeat` makes it append the last page again
 * (duplicates: nothing new for the merge). `delay` ms before each answer of load-more.json. `label=1` makes
 * the button do what most sites' do: it says "Loading…" and is disabled while it fetches, and says "Load more"
 * again once the items are in.
 */
const LOAD_MORE_SCRIPT = `
const params = new URLSearchParams(location.search);
const more = document.getElementById('more');
let shown = 1;
more.addEventListener('click', async () => {
  more.disabled = true;
  if (params.get('label') === '1') more.textContent = 'Loading…';
  const next = new URLSearchParams(location.search);
  next.set('page', String(shown + 1));
  const response = await fetch('/actions/load-more.json?' + next);
  const items = await response.json();
  const list = document.getElementById('items');
  for (const name of items) {
    const li = document.createElement('li');
    li.className = 'item';
    li.innerHTML = '<a></a>';
    li.firstChild.href = '/items/' + encodeURIComponent(name);
    li.firstChild.textContent = name;
    list.appendChild(li);
  }
  if (items.length > 0) shown += 1;
  more.disabled = false;
  more.textContent = 'Load more';
  const last = shown >= Number(params.get('pages') || 3);
  if (last && params.get('end') === 'disable') more.disabled = true;
  else if (last && params.get('end') !== 'stay' && params.get('end') !== 'repeat') more.remove();
});`;

/**
 * `/actions/scroll.html?pages=3&size=5`: more items are fetched each time the page is scrolled near its end.
 * `spinner=1` shows a "Loading…" spinner under the list while they are fetched, as most endless lists do.
 */
const SCROLL_SCRIPT = `
const params = new URLSearchParams(location.search);
let shown = 1;
let loading = false;
window.addEventListener('scroll', async () => {
  if (loading || shown >= Number(params.get('pages') || 3)) return;
  if (window.innerHeight + window.scrollY < document.documentElement.scrollHeight - 50) return;
  loading = true;
  let spinner;
  if (params.get('spinner') === '1') {
    spinner = document.createElement('div');
    spinner.className = 'spinner';
    spinner.textContent = 'Loading…';
    document.body.appendChild(spinner);
  }
  const next = new URLSearchParams(location.search);
  next.set('page', String(shown + 1));
  next.set('scroll', '1');
  const response = await fetch('/actions/load-more.json?' + next);
  const items = await response.json();
  if (spinner) spinner.remove();
  const list = document.getElementById('items');
  for (const name of items) {
    const li = document.createElement('li');
    li.className = 'item';
    li.textContent = name;
    list.appendChild(li);
  }
  shown += 1;
  loading = false;
});`;

/** `/actions/consent.html?wall=1`: with the wall, the list is added only once #accept is clicked. */
const CONSENT_SCRIPT = `
const accept = document.getElementById('accept');
if (accept) accept.addEventListener('click', () => {
  document.getElementById('consent').remove();
  document.getElementById('items').innerHTML = ${JSON.stringify(itemsHtml(ACTION_ITEMS.slice(0, 3)))};
});`;

/** `/actions/late.html?after=1500`: the list appears `after` ms after load, with no network activity before it. */
const LATE_SCRIPT = `
const after = Number(new URLSearchParams(location.search).get('after') || 1500);
window.addEventListener('load', () => setTimeout(() => {
  document.getElementById('items').innerHTML = ${JSON.stringify(itemsHtml(ACTION_ITEMS.slice(0, 2)).replaceAll('class="item"', 'class="item late"'))};
}, after));`;

/** `/actions/search-js.html`: #go shows the results of #q in place (no navigation), from results.json. */
const SEARCH_JS_SCRIPT = `
document.getElementById('go').addEventListener('click', async () => {
  const q = document.getElementById('q').value;
  const response = await fetch('/actions/results.json?q=' + encodeURIComponent(q));
  const titles = await response.json();
  const list = document.getElementById('results');
  list.replaceChildren(...titles.map((title) => { const li = document.createElement('li'); li.className = 'result'; li.textContent = title; return li; }));
});`;

function searchResults(q: string, sort: string | null): string[] {
  const found = SEARCH_BOOKS.filter((title) => title.toLowerCase().includes(q.toLowerCase()));
  return sort === 'desc' ? [...found].sort().reverse() : [...found].sort();
}

export const actionRoutes: Record<string, RouteHandler> = {
  '/actions/load-more.html': (req, res) => {
    const size = num(query(req), 'size', 3, 20);
    page(
      res,
      'Load more',
      `<ul id="items">${itemsHtml(ACTION_ITEMS.slice(0, size))}</ul><button id="more" type="button">Load more</button><script>${LOAD_MORE_SCRIPT}</script>`,
    );
  },
  '/actions/scroll.html': (req, res) => {
    const size = num(query(req), 'size', 5, 20);
    page(
      res,
      'Endless list',
      `<ul id="items">${ACTION_ITEMS.slice(0, size)
        .map((name) => `<li class="item">${name}</li>`)
        .join('')}</ul><script>${SCROLL_SCRIPT}</script>`,
    );
  },
  '/actions/load-more.json': async (req, res) => {
    const params = query(req);
    const size = num(params, 'size', params.has('scroll') ? 5 : 3, 20);
    const pages = num(params, 'pages', 3, 20);
    const wanted = num(params, 'page', 2, 20);
    await new Promise((resolve) => setTimeout(resolve, num(params, 'delay', 30, 10_000)));
    const index = params.get('end') === 'repeat' ? Math.min(wanted, pages) : wanted;
    const items = index <= pages ? ACTION_ITEMS.slice((index - 1) * size, index * size) : [];
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(items));
  },
  '/actions/consent.html': (req, res) => {
    const wall = query(req).get('wall') === '1';
    const body = wall
      ? `<div id="consent" role="dialog"><p>We use cookies.</p><button id="accept" type="button">Accept all</button></div><ul id="items"></ul>`
      : `<ul id="items">${itemsHtml(ACTION_ITEMS.slice(0, 3))}</ul>`;
    page(res, 'Consent', `${body}<script>${CONSENT_SCRIPT}</script>`);
  },
  '/actions/late.html': (_req, res) => page(res, 'Late content', `<ul id="items"></ul><script>${LATE_SCRIPT}</script>`),
  '/actions/search.html': (_req, res) =>
    page(
      res,
      'Search',
      `<form action="/actions/results.html" method="get"><input id="q" name="q" type="search"><select id="sort" name="sort"><option value="asc">A to Z</option><option value="desc">Z to A</option></select></form>`,
    ),
  '/actions/results.html': (req, res) => {
    const params = query(req);
    const q = params.get('q') ?? '';
    const results = searchResults(q, params.get('sort'));
    page(
      res,
      'Results',
      `<p class="query">${escapeHtml(q)}</p><ul id="results">${results.map((title) => `<li class="result">${escapeHtml(title)}</li>`).join('')}</ul>`,
    );
  },
  // Links a step follows: to a page past a 2 MiB byte cap (streamed), and to one that is not there (404).
  '/actions/links.html': (_req, res) =>
    page(res, 'Links', `<a id="big" href="/actions/big.html">big</a> <a id="gone" href="/actions/gone.html">gone</a>`),
  '/actions/big.html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!doctype html><html><body><p>');
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    const more = (): void => {
      while (sent < 4 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('</p></body></html>');
    };
    more();
  },
  '/actions/search-js.html': (_req, res) =>
    page(
      res,
      'Search',
      `<input id="q" type="search"><button id="go" type="button">Search</button><ul id="results"></ul><script>${SEARCH_JS_SCRIPT}</script>`,
    ),
  '/actions/results.json': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(searchResults(query(req).get('q') ?? '', null)));
  },
};
