import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiConfigInput } from '../../../src/core/config/schema.js';
import type { FixtureSite, RouteHandler } from '../site.js';

/**
 * Lists over several pages (issue 34, pagination.next and pagination.variable). Each page holds `size` books
 * (3 by default) of `pages` pages (3 by default), numbered across pages (page 2 starts at book 4), in a
 * `ul.books` with a pager below it (`a[rel=next]` and numbered links, the way shops write them).
 *
 * - `/pages/next.html?page=N`: follow the next link. Options travel in the query and every link keeps them:
 *   `loop=1` (the last page's next link points back to page 1), `dup=1` (each page after the first repeats the
 *   last book of the page before; `dup=2`: at another price), `offsite=1` (page 2's next link leaves the site), `redirect=1` (page 3
 *   redirects to page 1), `away=ORIGIN` (page 3 redirects to page 3 of the same list at another origin).
 * - `/pages/numbered?page=N` and `/pages/catalog/N` (a path segment): by page number. `past=` says what a page
 *   past the last is: `404` (default), `empty` (a page without books), `first` (page 1's books again, no
 *   redirect) or `redirect` (a redirect to page 1).
 * - On every kind: `hang=N` (page N never answers: the time budget's test), `fail=N` (page N answers 500),
 *   `delay=N` (every page answers N ms late, as across a network),
 *   `size=`, `pages=`.
 */
const BOOK_TITLES = [
  'A Light in the Attic',
  'Tipping the Velvet',
  'Soumission',
  'Sharp Objects',
  'Sapiens',
  'The Requiem Red',
  'The Dirty Little Secrets',
  'The Coming Woman',
  'The Boys in the Boat',
  'The Black Maria',
  'Starving Hearts',
  "Shakespeare's Sonnets",
  'Set Me Free',
  "Scott Pilgrim's Precious Little Life",
  'Rip it Up and Start Again',
  'Our Band Could Be Your Life',
  'Olio',
  'Mesaerion',
  'Libertarianism for Beginners',
  "It's Only the Himalayas",
];

/** Book `index` (1-based) of the whole list: a title, its own page and a price. */
export function paginationBook(index: number): { title: string; url: string; price: number } {
  const title = BOOK_TITLES[(index - 1) % BOOK_TITLES.length]!;
  return {
    title: index > BOOK_TITLES.length ? `${title} (${Math.ceil(index / BOOK_TITLES.length)})` : title,
    url: `/pages/book/${index}`,
    price: 10 + index,
  };
}

interface Options {
  page: number;
  size: number;
  pages: number;
  params: URLSearchParams;
}

function optionsOf(req: IncomingMessage, page?: number): Options {
  const params = new URL(req.url ?? '/', 'http://fixture').searchParams;
  const int = (name: string, fallback: number, max: number) => {
    const value = Number(params.get(name));
    return Number.isInteger(value) && value >= 1 && value <= max ? value : fallback;
  };
  return { page: page ?? int('page', 1, 1_000), size: int('size', 3, 50), pages: int('pages', 3, 200), params };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function booksOf(options: Options, page: number): number[] {
  const first = (page - 1) * options.size + 1;
  const books = Array.from({ length: options.size }, (_, index) => first + index);
  // dup=1: a shop whose pages overlap by one item (the list moved while it was read); dup=2: the same, the
  // repeated item's price changed meanwhile (a negative number here: equal by its url only).
  const dup = options.params.get('dup');
  return (dup === '1' || dup === '2') && page > 1 ? [dup === '2' ? -(first - 1) : first - 1, ...books.slice(0, -1)] : books;
}

/** The list; `site.state.get('pagination') === 'redesign'` serves the same books in other markup (heal's test). */
function listHtml(books: number[], site?: FixtureSite): string {
  const redesigned = site?.state.get('pagination') === 'redesign';
  const items = books.map((index) => {
    const book = paginationBook(Math.abs(index));
    const price = index < 0 ? book.price + 1 : book.price;
    if (redesigned)
      return `<article class="card"><a class="card-link" href="${book.url}"><span class="name">${escapeHtml(book.title)}</span></a><div class="cost">£${price}.00</div></article>`;
    return `<li class="book"><h3><a class="title" href="${book.url}">${escapeHtml(book.title)}</a></h3><p class="price">£${price}.00</p></li>`;
  });
  return redesigned ? `<section class="grid">${items.join('')}</section>` : `<ul class="books">${items.join('')}</ul>`;
}

function send(res: ServerResponse, title: string, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p class="count">${title}</p>${body}</main></body></html>`,
  );
}

/** hang= and fail=: a page that never answers (until the client goes) or answers 500. True when handled. */
function fault(res: ServerResponse, options: Options): boolean {
  if (Number(options.params.get('hang')) === options.page) {
    res.on('close', () => undefined);
    return true;
  }
  if (Number(options.params.get('fail')) === options.page) {
    res.writeHead(500, { 'content-type': 'text/html' });
    res.end('<h1>Internal error</h1>');
    return true;
  }
  return false;
}

/** The page's address with another page number, the other options kept. */
function withPage(path: string, options: Options, page: number): string {
  const params = new URLSearchParams(options.params);
  params.set('page', String(page));
  return `${path}?${params}`;
}

function pagerHtml(options: Options, next: string | undefined, link: (page: number) => string): string {
  const numbers = Array.from({ length: options.pages }, (_, index) => index + 1).map((page) =>
    page === options.page ? `<li class="current">${page}</li>` : `<li><a href="${escapeHtml(link(page))}">${page}</a></li>`,
  );
  const nextLink = next === undefined ? '' : `<li class="next"><a rel="next" href="${escapeHtml(next)}">next</a></li>`;
  return `<nav class="pagination"><ul class="pager">${numbers.join('')}${nextLink}</ul></nav>`;
}

const nextPages: RouteHandler = (req, res, site) => {
  const options = optionsOf(req);
  if (fault(res, options)) return;
  const path = '/pages/next.html';
  if (options.params.get('redirect') === '1' && options.page === 3) {
    res.writeHead(302, { location: withPage(path, options, 1) });
    res.end();
    return;
  }
  const away = options.params.get('away');
  if (away && options.page === 3) {
    res.writeHead(302, { location: `${away}${path}?page=3` });
    res.end();
    return;
  }
  let next: string | undefined = options.page < options.pages ? withPage(path, options, options.page + 1) : undefined;
  if (options.page === options.pages && options.params.get('loop') === '1') next = withPage(path, options, 1);
  if (options.page === 2 && options.params.get('offsite') === '1') next = 'http://elsewhere.invalid/pages/next.html?page=3';
  send(
    res,
    `Books, page ${options.page} of ${options.pages}`,
    listHtml(booksOf(options, options.page), site) + pagerHtml(options, next, (page) => withPage(path, options, page)),
  );
};

/** By page number: past the last page, what `past=` says. */
function numberedPage(path: (options: Options, page: number) => string) {
  return (req: IncomingMessage, res: ServerResponse, page?: number): void => {
    const options = optionsOf(req, page);
    if (fault(res, options)) return;
    const past = options.params.get('past') ?? '404';
    let books = booksOf(options, options.page);
    if (options.page > options.pages) {
      if (past === 'redirect') {
        res.writeHead(302, { location: path(options, 1) });
        res.end();
        return;
      }
      if (past === '404') return send(res, 'Not found', '<p>No such page.</p>', 404);
      books = past === 'first' ? booksOf(options, 1) : [];
    }
    const next = options.page < options.pages ? path(options, options.page + 1) : undefined;
    send(res, `Books, page ${options.page} of ${options.pages}`, listHtml(books) + pagerHtml(options, next, (at) => path(options, at)));
  };
}

const byQuery = numberedPage((options, page) => withPage('/pages/numbered', options, page));
const bySegment = numberedPage((options, page) => `/pages/catalog/${page}${options.params.size > 0 ? `?${options.params}` : ''}`);

const bookPage: RouteHandler = (_req, res) => send(res, 'A book', '<p>One book.</p>');

/** `delay=N` (ms, at most 2,000): every page answers that much later, as a site across a network does (the bench). */
function delayed(handler: RouteHandler): RouteHandler {
  return async (req, res, site) => {
    const ms = Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('delay'));
    if (Number.isInteger(ms) && ms > 0 && ms <= 2_000) await new Promise((resolve) => setTimeout(resolve, ms));
    return handler(req, res, site);
  };
}

/** The structure the paginated catalogue pages are read with: a heading and the list of books. */
export const PAGINATED_BOOKS_STRUCTURE: ApiConfigInput['structure'] = [
  { name: 'heading', type: 'string', selector: 'h1' },
  {
    name: 'books',
    type: 'array',
    selector: 'li.book',
    fields: [
      { name: 'title', type: 'string', selector: 'a.title' },
      { name: 'url', type: 'url', selector: 'a.title', attribute: 'href' },
    ],
  },
];

/** The titles of the catalogue's first `count` books, in order. */
export const paginationTitlesUpTo = (count: number): string[] =>
  Array.from({ length: count }, (_, index) => paginationBook(index + 1).title);

export const paginationRoutes: Record<string, RouteHandler> = {
  '/pages/next.html': delayed(nextPages),
  '/pages/numbered': delayed((req, res) => byQuery(req, res)),
  // The path segment's page numbers, registered one by one (routes are exact pathnames).
  ...Object.fromEntries(
    Array.from({ length: 30 }, (_, index) => [`/pages/catalog/${index + 1}`, delayed((req, res) => bySegment(req, res, index + 1))]),
  ),
  ...Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`/pages/book/${index + 1}`, bookPage])),
};
