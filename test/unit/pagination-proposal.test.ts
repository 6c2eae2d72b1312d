import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../src/core/extract/engine/index.js';
import { proposeNextLink } from '../../src/core/generation/next-link.js';
import { pageExpectation } from '../../src/core/health/paged-expectation.js';

/** generate's next-link proposal (issue 34, item 4) and what a repair expects of a paginated list's first page. */
const page = (body: string, head = '') => parseHtml(`<html><head>${head}</head><body><ul><li>a</li><li>b</li></ul>${body}</body></html>`);
const URL_NOW = 'https://shop.example/list?page=1';

describe('proposeNextLink', () => {
  it('takes rel=next first, on a link or in the head', () => {
    expect(proposeNextLink(page('<a rel="next nofollow" href="?page=2">2</a>'), URL_NOW)).toEqual({
      next: 'a[rel~="next"]',
      href: 'https://shop.example/list?page=2',
    });
    expect(proposeNextLink(page('', '<link rel="next" href="/list?page=2">'), URL_NOW)).toEqual({
      next: 'link[rel~="next"]',
      href: 'https://shop.example/list?page=2',
    });
  });

  it('finds a pager link that says next by its text, its label or its class, and gives a selector that reads it back', () => {
    const byText = proposeNextLink(
      page('<nav id="pages"><a href="?page=1">1</a><a href="?page=2">2</a><a href="?page=2">Next ›</a></nav>'),
      URL_NOW,
    );
    expect(byText?.href).toBe('https://shop.example/list?page=2');
    expect(byText?.next).not.toBe('a');
    const byLabel = proposeNextLink(page('<div class="pg"><a aria-label="Go to next page" href="/list?page=2">→</a></div>'), URL_NOW);
    expect(byLabel?.href).toBe('https://shop.example/list?page=2');
    const byClass = proposeNextLink(page('<div class="pg"><span class="page-next"><a href="/list?page=2">»</a></span></div>'), URL_NOW);
    expect(byClass?.href).toBe('https://shop.example/list?page=2');
  });

  it('proposes nothing for a page without one, a link to itself, to another site, or to a script', () => {
    expect(proposeNextLink(page('<a href="/about">About</a>'), URL_NOW)).toBeNull();
    expect(proposeNextLink(page('<a rel="next" href="?page=1">next</a>'), URL_NOW)).toBeNull();
    expect(proposeNextLink(page('<a rel="next" href="https://elsewhere.example/?page=2">next</a>'), URL_NOW)).toBeNull();
    expect(proposeNextLink(page('<a class="next" href="javascript:go(2)">Next</a>'), URL_NOW)).toBeNull();
    expect(proposeNextLink(page('<a aria-label="previous page, not next" href="?page=0">‹</a>'), URL_NOW)).toBeNull();
  });
});

describe('pageExpectation', () => {
  const config = {
    structure: [
      { name: 'title', type: 'string' as const, selector: 'h1' },
      {
        name: 'books',
        type: 'array' as const,
        selector: 'li',
        fields: [
          { name: 'name', type: 'string' as const, selector: 'a' },
          { name: 'url', type: 'url' as const, selector: 'a', attribute: 'href' },
        ],
      },
    ],
    pagination: { next: 'a.next', maxPages: 10 },
  };
  const expected = {
    title: 'Books',
    books: [
      { name: 'Sapiens', url: 'https://shop.example/b/1' },
      { name: 'Olio', url: 'https://shop.example/b/2' },
      { name: 'Mesaerion', url: 'https://shop.example/b/3' },
    ],
  };

  it('keeps the items the page has, by their text or their address', () => {
    const html = '<h1>Books</h1><div class="card"><span>SAPIENS</span></div><a href="/b/2">cover</a>';
    expect(pageExpectation(config, expected, html, 'https://shop.example/list').books).toEqual(expected.books.slice(0, 2));
  });

  it('leaves the data alone without pagination, or when no item is on the page', () => {
    const { pagination: _none, ...plain } = config;
    expect(pageExpectation(plain, expected, '<p>Sapiens</p>', 'https://shop.example/list')).toBe(expected);
    expect(pageExpectation(config, expected, '<p>nothing</p>', 'https://shop.example/list')).toBe(expected);
  });
});
