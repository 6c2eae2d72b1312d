import type { RouteHandler } from '../site.js';

/**
 * A shop page before and after a realistic redesign (drift tests): class names renamed the way a CSS-modules
 * build renames them, an extra wrapper around the grid, the item tag changed from `article` to `li`, fields
 * reordered inside items, the price moved into a child element. `site.state.get('drift')` says which
 * version is live ('1' by default), so a test can "redesign the site" under a running config.
 */
const BOOKS = [
  { title: 'A Light in the Attic', price: '51.77', url: '/books/light' },
  { title: 'Tipping the Velvet', price: '53.74', url: '/books/velvet' },
  { title: 'Soumission', price: '50.10', url: '/books/soumission' },
  { title: 'Sharp Objects', price: '47.82', url: '/books/sharp' },
];

function before(): string {
  const items = BOOKS.map(
    (b) =>
      `<article class="book"><h3 class="book-title"><a href="${b.url}">${b.title}</a></h3><p class="book-price">£${b.price}</p></article>`,
  ).join('');
  return `<h1 class="shop-title">Books</h1><section class="catalogue">${items}</section>`;
}

function after(): string {
  const items = BOOKS.map(
    (b) =>
      `<li class="Card_root__x7Hq2"><div class="Card_price__Pp91z"><span>£${b.price}</span></div><h4 class="Card_name__aB3kd"><a href="${b.url}">${b.title}</a></h4></li>`,
  ).join('');
  return `<h1 class="Header_title__Zz12a">Books</h1><div class="Layout_wrapper__Qq8s1"><ul class="Grid_list__Lm4k2">${items}</ul></div>`;
}

function broken(): string {
  return '<h1 class="x">Maintenance</h1><p>We will be back soon.</p>';
}

export const driftRoutes: Record<string, RouteHandler> = {
  '/drift/shop': (_req, res, site) => {
    const version = site.state.get('drift') ?? '1';
    const body = version === '1' ? before() : version === '2' ? after() : broken();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Books shop</title></head><body>${body}</body></html>`);
  },
};
