import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiConfigSchema, type ApiConfig, type ApiConfigInput } from '../../src/core/config/schema.js';
import { mergePages } from '../../src/core/extract/page-merge.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/index.js';
import type { FetchRequest, Scraper } from '../../src/core/fetch/scrapers/types.js';
import { paginate, pageBudget, type PageRun } from '../../src/core/retrieval/paginate.js';
import { retrieve, type RetrieveDeps } from '../../src/core/retrieval/retrieve.js';
import { paginationBook } from '../support/site-routes/pagination.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * The page loop of pagination.next and pagination.variable (issue 34) through the real page pipeline: the
 * http scraper against the fixture site's paged lists (test/support/site-routes/pagination.ts), extraction
 * in-process. Every stop, limit and error of the loop, and the merge.
 */
let site: FixtureSite;
let http: Scraper;

function deps(requests: FetchRequest[] = [], pages: RetrieveDeps['pages'] = { budgetMs: 5_000, concurrency: 4 }): RetrieveDeps {
  return {
    scraperFor: () => ({
      name: http.name,
      close: () => Promise.resolve(),
      fetch: (request) => (requests.push(request), http.fetch(request)),
    }),
    pages,
  };
}

const STRUCTURE: ApiConfigInput['structure'] = [
  { name: 'heading', type: 'string', selector: 'h1' },
  {
    name: 'books',
    type: 'array',
    selector: 'li.book',
    fields: [
      { name: 'title', type: 'string', selector: 'a.title' },
      { name: 'url', type: 'url', selector: 'a.title', attribute: 'href' },
      { name: 'price', type: 'number', selector: '.price' },
    ],
  },
];

function config(url: string, pagination: ApiConfigInput['pagination'], extra: Partial<ApiConfigInput> = {}): ApiConfig {
  return ApiConfigSchema.parse({ apiId: 'paged', url: `${site.origin}${url}`, structure: STRUCTURE, pagination, ...extra });
}

const titles = (data: Record<string, unknown>) => (data.books as Array<{ title: string }>).map((book) => book.title);
const booksUpTo = (count: number) => Array.from({ length: count }, (_, index) => paginationBook(index + 1).title);

beforeAll(async () => {
  site = await startFixtureSite();
  http = createHttpScraper({ timeoutMs: 5_000, maxBytes: 1024 * 1024, perOriginConcurrency: 4, allowPrivateNetworks: true });
});

afterAll(async () => {
  await http?.close();
  await site?.close();
});

describe('pagination.next', () => {
  it('follows the next link over three pages and merges the books in order, the other fields from the first page', async () => {
    const requests: FetchRequest[] = [];
    const result = await retrieve(config('/pages/next.html?page=1', { next: 'a[rel=next]' }), {}, deps(requests));
    expect(titles(result.data)).toEqual(booksUpTo(9));
    expect(result.data.heading).toBe('Books, page 1 of 3');
    expect((result.data.books as Array<{ url: string }>)[8]!.url).toBe(`${site.origin}/pages/book/9`);
    expect(result.pages).toBe(3);
    expect(result.partial).toBeUndefined();
    expect(requests.map((request) => new URL(request.url).searchParams.get('page'))).toEqual(['1', '2', '3']);
    expect(result.morePages?.map((page) => new URL(page.url).searchParams.get('page'))).toEqual(['2', '3']);
    expect(result.morePages?.[1]?.html).toContain('Books, page 3 of 3');
  });

  it('stops at a loop back to page 1 (a URL already seen) without fetching page 1 again', async () => {
    const requests: FetchRequest[] = [];
    const result = await retrieve(config('/pages/next.html?page=1&loop=1', { next: 'a[rel=next]' }), {}, deps(requests));
    expect(titles(result.data)).toEqual(booksUpTo(9));
    expect(result.pages).toBe(3);
    expect(requests).toHaveLength(3);
  });

  it('stops when a redirect leads back to a page already read', async () => {
    const result = await retrieve(config('/pages/next.html?page=1&redirect=1', { next: 'a[rel=next]' }), {}, deps());
    expect(titles(result.data)).toEqual(booksUpTo(6));
    expect(result.pages).toBe(2);
  });

  it('drops items seen on an earlier page (equal in every field, or in the key field)', async () => {
    // dup=1 repeats the last book of the page before as it was.
    const whole = await retrieve(config('/pages/next.html?page=1&dup=1', { next: 'a[rel=next]' }), {}, deps());
    expect(titles(whole.data)).toEqual(booksUpTo(8));
    // dup=2 repeats it at another price: another item in every field, the same by its url.
    const priced = await retrieve(config('/pages/next.html?page=1&dup=2', { next: 'a[rel=next]' }), {}, deps());
    expect(titles(priced.data)).toHaveLength(9);
    const keyed = await retrieve(config('/pages/next.html?page=1&dup=2', { next: 'a[rel=next]', key: 'url' }), {}, deps());
    expect(titles(keyed.data)).toEqual(booksUpTo(8));
    expect((keyed.data.books as Array<{ price: number }>)[2]!.price).toBe(paginationBook(3).price);
  });

  it('stops at maxPages, and at maxItems with the list cut there', async () => {
    const requests: FetchRequest[] = [];
    const pages = await retrieve(config('/pages/next.html?page=1&pages=10', { next: 'a[rel=next]', maxPages: 2 }), {}, deps(requests));
    expect(titles(pages.data)).toEqual(booksUpTo(6));
    expect(requests).toHaveLength(2);
    const items = await retrieve(config('/pages/next.html?page=1&pages=10', { next: 'a[rel=next]', maxItems: 5 }), {}, deps());
    expect(titles(items.data)).toEqual(booksUpTo(5));
    expect(items.pages).toBe(2);
  });

  it('does not follow a next link that leaves the site', async () => {
    const requests: FetchRequest[] = [];
    const result = await retrieve(config('/pages/next.html?page=1&offsite=1', { next: 'a[rel=next]' }), {}, deps(requests));
    expect(result.pages).toBe(2);
    expect(requests.every((request) => request.url.startsWith(site.origin))).toBe(true);
  });

  it('does not take a page whose link stays on the site but redirects to another one (issue 45)', async () => {
    const elsewhere = await startFixtureSite();
    try {
      const requests: FetchRequest[] = [];
      const url = `/pages/next.html?page=1&away=${encodeURIComponent(elsewhere.origin)}`;
      const result = await retrieve(config(url, { next: 'a[rel=next]' }), {}, deps(requests));
      // Page 3's link is on the site; it landed on the other one, which holds books 7 to 9: not merged.
      expect(elsewhere.hitCount('/pages/next.html')).toBe(1);
      expect(titles(result.data)).toEqual(booksUpTo(6));
      expect(result.pages).toBe(2);
    } finally {
      await elsewhere.close();
    }
  });

  it('answers the pages before a page that fails, and says the answer is partial', async () => {
    const result = await retrieve(config('/pages/next.html?page=1&fail=3', { next: 'a[rel=next]' }), {}, deps());
    expect(titles(result.data)).toEqual(booksUpTo(6));
    expect(result.partial).toBe('error');
    expect(result.pages).toBe(2);
  });

  it('answers the pages read when the time budget ends, partial, and stops the page in flight', async () => {
    const result = await retrieve(
      config('/pages/next.html?page=1&hang=3', { next: 'a[rel=next]' }),
      {},
      deps([], { budgetMs: 1_500, concurrency: 4 }),
    );
    expect(titles(result.data)).toEqual(booksUpTo(6));
    expect(result.partial).toBe('time');
    expect(result.pages).toBe(2);
  });
});

describe('pagination.variable', () => {
  it('counts a query variable up: callers do not send it, and the first page is start', async () => {
    const requests: FetchRequest[] = [];
    const result = await retrieve(config('/pages/numbered?page={{ page }}', { variable: 'page' }), {}, deps(requests));
    expect(titles(result.data)).toEqual(booksUpTo(9));
    expect(result.pages).toBe(3);
    // Page 4 is past the end (404): the list's end, not an error.
    expect(result.partial).toBeUndefined();
    expect(requests.map((request) => new URL(request.url).searchParams.get('page')).slice(0, 4)).toEqual(['1', '2', '3', '4']);
  });

  it('counts a path segment from start', async () => {
    const result = await retrieve(config('/pages/catalog/{{ n }}?pages=4', { variable: 'n', start: 2 }), {}, deps());
    expect(titles(result.data)).toEqual(booksUpTo(12).slice(3));
    expect(result.pages).toBe(3);
  });

  it('stops at an empty page, at a page of items already read, and at a redirect to page 1', async () => {
    for (const past of ['empty', 'first', 'redirect']) {
      const result = await retrieve(config(`/pages/numbered?past=${past}&page={{ page }}`, { variable: 'page' }), {}, deps());
      expect(titles(result.data), past).toEqual(booksUpTo(9));
      expect(result.pages, past).toBe(3);
    }
  });

  it('fetches pages ahead, at most `concurrency` at once, and stops at maxPages', async () => {
    const requests: FetchRequest[] = [];
    const result = await retrieve(
      config('/pages/numbered?pages=50&page={{ page }}', { variable: 'page', maxPages: 5 }),
      {},
      deps(requests, { budgetMs: 5_000, concurrency: 2 }),
    );
    expect(titles(result.data)).toEqual(booksUpTo(15));
    expect(requests).toHaveLength(5);
  });
});

describe('the page loop', () => {
  const page = (url: string, titlesOf: string[], nextHref: string | null = null): PageRun => ({
    data: { books: titlesOf.map((title) => ({ title })) },
    finalUrl: url,
    nextHref,
  });
  const nextConfig = () => config('/pages/next.html?page=1', { next: 'a' });

  it('ends at the time budget on a fake clock: the page in flight is abandoned, the answer is partial', async () => {
    vi.useFakeTimers();
    try {
      const budget = pageBudget(10_000);
      let abandoned = false;
      const load = (url: string, signal: AbortSignal) =>
        new Promise<PageRun>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            abandoned = true;
            reject(new Error(`stopped ${url}`));
          });
        });
      const first = { url: 'https://shop.example/1', page: page('https://shop.example/1', ['a'], 'https://shop.example/2') };
      const running = paginate(nextConfig(), {}, first, load, { budget: budget.signal });
      await vi.advanceTimersByTimeAsync(9_999);
      expect(abandoned).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const outcome = await running;
      expect(abandoned).toBe(true);
      expect(outcome).toMatchObject({ pages: 1, stop: 'time', partial: 'time' });
      budget.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('throws when the request itself is cancelled, rather than answering a partial list', async () => {
    const request = new AbortController();
    const load = () => {
      request.abort();
      return Promise.reject(new Error('cancelled'));
    };
    const first = { url: 'https://shop.example/1', page: page('https://shop.example/1', ['a'], 'https://shop.example/2') };
    await expect(paginate(nextConfig(), {}, first, load, { signal: request.signal })).rejects.toThrow('cancelled');
  });

  it('merges in order, once each, cut at maxItems; a key field tells items apart', () => {
    const merge = mergePages(
      {
        title: 'first',
        books: [
          { t: 'a', u: 1 },
          { t: 'b', u: 2 },
          { t: 'a', u: 1 },
        ],
      },
      { list: 'books', maxItems: 4 },
    );
    expect(
      merge.add({
        title: 'second',
        books: [
          { t: 'b', u: 2 },
          { t: 'c', u: 3 },
        ],
      }),
    ).toBe(1);
    expect(merge.add({ books: [{ t: 'b', u: 2 }] })).toBe(0);
    expect(
      merge.add({
        books: [
          { t: 'd', u: 4 },
          { t: 'e', u: 5 },
        ],
      }),
    ).toBe(1);
    expect(merge.full).toBe(true);
    expect(merge.data).toEqual({
      title: 'first',
      books: [
        { t: 'a', u: 1 },
        { t: 'b', u: 2 },
        { t: 'c', u: 3 },
        { t: 'd', u: 4 },
      ],
    });
    const keyed = mergePages({ books: [{ t: 'a', u: 1 }] }, { list: 'books', key: 'u' });
    expect(
      keyed.add({
        books: [
          { t: 'a (again)', u: 1 },
          { t: 'b', u: null },
          { t: 'b', u: null },
        ],
      }),
    ).toBe(1);
  });
});
