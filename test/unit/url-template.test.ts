import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkVariableValues,
  exampleValues,
  markVariable,
  placeholderNames,
  resolveSourceUrl,
  templateProblems,
  unmarkVariable,
} from '../../src/core/config/url-template.js';
import { PagejsonError } from '../../src/core/shared/errors.js';

const books = {
  url: 'https://shop.example/catalogue/{{ category }}/index.html?page={{page}}&sort=price',
  variables: { category: { example: 'travel' }, page: { example: '1', pattern: '^[0-9]{1,4}$' } },
};

describe('placeholders', () => {
  it('finds names with or without spaces, in order, once each', () => {
    expect(placeholderNames('https://a.example/{{a}}/{{ b }}/x?q={{  a  }}&r={{c}}')).toEqual(['a', 'b', 'c']);
    expect(placeholderNames('https://a.example/static')).toEqual([]);
  });

  it('accepts placeholders in path segments and query values only', () => {
    expect(templateProblems(books.url)).toEqual([]);
    expect(templateProblems('https://{{ host }}/x')).toContain('placeholders may not stand in the scheme, host, port or user info');
    expect(templateProblems('https://a.example:{{port}}/x').join()).toMatch(/scheme, host, port/);
    expect(templateProblems('https://a.example/x#{{frag}}')).toContain('placeholders may not stand in the fragment');
    expect(templateProblems('https://a.example/x?{{k}}=1').join()).toMatch(/query parameter name/);
    expect(templateProblems('ftp://a.example/x')).toContain('the url scheme must be http or https');
    expect(templateProblems('not a url')[0]).toMatch(/absolute http\(s\) URL/);
    expect(templateProblems('https://a.example/{{ bad name }}').join()).toMatch(/malformed placeholder/);
  });
});

describe('checking and rendering values', () => {
  it('renders percent-encoded values into their places', () => {
    expect(resolveSourceUrl(books, { category: 'travel & leisure', page: '2' })).toBe(
      'https://shop.example/catalogue/travel%20%26%20leisure/index.html?page=2&sort=price',
    );
    // In a query value a slash is only text; in a path segment it would be sent as %2F (see below).
    const query = { url: 'https://shop.example/search?q={{ q }}', variables: { q: { example: 'x' } } };
    expect(resolveSourceUrl(query, { q: 'a/b\\c' })).toBe('https://shop.example/search?q=a%2Fb%5Cc');
  });

  it('reports one problem per variable with the exact wire messages', () => {
    const problems = checkVariableValues(books, { page: 7, extra: 'x' });
    expect(problems.map((p) => p.message)).toEqual([
      'missing variable: category',
      'variable page must be a string',
      'unknown variable: extra',
    ]);
    expect(checkVariableValues(books, { category: 'a', page: '12345' })[0]?.message).toBe('variable page does not match ^[0-9]{1,4}$');
    expect(checkVariableValues(books, { category: 'x'.repeat(1025), page: '1' })[0]?.message).toBe('variable category is too long');
    expect(checkVariableValues(books, { category: 'x'.repeat(1024), page: '1' })).toEqual([]);
  });

  it('rejects values that would make a whole path segment . or ..', () => {
    for (const value of ['.', '..', '']) {
      expect(checkVariableValues(books, { category: value, page: '1' })[0]?.code).toBe('VARIABLE_PATTERN');
    }
    expect(checkVariableValues(books, { category: '...', page: '1' })).toEqual([]);
  });

  it('patterns must match the whole value', () => {
    const config = { url: 'https://a.example/{{id}}', variables: { id: { example: '1', pattern: '[0-9]+' } } };
    expect(checkVariableValues(config, { id: '12a' })).toHaveLength(1);
    expect(checkVariableValues(config, { id: '12' })).toEqual([]);
  });

  it('throws a PagejsonError with every problem in its context', () => {
    try {
      resolveSourceUrl(books, {});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PagejsonError);
      expect((error as PagejsonError).code).toBe('VARIABLE_MISSING');
      expect(((error as PagejsonError).context.problems as unknown[]).length).toBe(2);
    }
  });

  it('property: a rendered URL keeps scheme, host, port and the path before the first placeholder', () => {
    const template = {
      url: 'https://shop.example:8443/api/v2/{{ a }}/items/{{b}}?page={{c}}&fixed=1',
      variables: { a: { example: 'x' }, b: { example: 'y' }, c: { example: 'z' } },
    };
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), (a, b, c) => {
        const values = { a, b, c };
        if (checkVariableValues(template, values).length > 0) return;
        const rendered = new URL(resolveSourceUrl(template, values));
        expect(rendered.protocol).toBe('https:');
        expect(rendered.hostname).toBe('shop.example');
        expect(rendered.port).toBe('8443');
        expect(rendered.pathname.startsWith('/api/v2/')).toBe(true);
        expect(rendered.pathname.split('/')).toHaveLength(6);
        expect(rendered.searchParams.get('page')).toBe(c);
        expect(rendered.searchParams.get('fixed')).toBe('1');
        expect(rendered.hash).toBe('');
      }),
      { numRuns: 500 },
    );
  });
});

describe('marking and unmarking variables', () => {
  const fixed = { url: 'https://shop.example/catalogue/travel/index.html?page=3&sort=price%20asc', variables: {} };

  it('turns path:N and query:PARAM into named variables keeping the old values as examples', () => {
    const one = markVariable(fixed, 'path:2', 'category');
    expect(one.url).toBe('https://shop.example/catalogue/{{ category }}/index.html?page=3&sort=price%20asc');
    const two = markVariable(one, 'query:sort', 'sort');
    expect(two.url).toBe('https://shop.example/catalogue/{{ category }}/index.html?page=3&sort={{ sort }}');
    expect(two.variables).toEqual({ category: { example: 'travel' }, sort: { example: 'price asc' } });
    expect(exampleValues(two)).toEqual({ category: 'travel', sort: 'price asc' });
    expect(resolveSourceUrl(two, exampleValues(two))).toBe(fixed.url);
  });

  it('round-trips: unmarking restores the original url', () => {
    const marked = markVariable(markVariable(fixed, 'path:1', 'section'), 'query:page', 'page');
    const back = unmarkVariable(unmarkVariable(marked, 'page'), 'section');
    expect(back).toEqual(fixed);
  });

  it('refuses bad places and names with a hint', () => {
    expect(() => markVariable(fixed, 'path:9', 'x')).toThrow(/no path segment 9/);
    expect(() => markVariable(fixed, 'query:missing', 'x')).toThrow(/no query parameter "missing"/);
    expect(() => markVariable(fixed, 'host', 'x')).toThrow(/cannot read variable place/);
    expect(() => markVariable(fixed, 'path:1', '1bad')).toThrow(/not a valid variable name/);
    const once = markVariable(fixed, 'path:1', 'a');
    expect(() => markVariable(once, 'path:1', 'b')).toThrow(/already dynamic/);
    expect(() => markVariable(once, 'path:2', 'a')).toThrow(/already exists/);
    expect(() => unmarkVariable(once, 'zzz')).toThrow(/no variable "zzz"/);
  });
});
