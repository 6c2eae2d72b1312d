import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseLocaleNumber } from '../../src/core/extract/engine/numbers.js';
import { memoizeText } from '../../src/core/extract/engine/text-memo.js';
import { toAbsoluteUrl, toNumber } from '../../src/core/extract/engine/transforms.js';

/** Conversions remembered across extractions must answer exactly as the conversion itself, every time. */

function plainUrl(value: string, base: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return null;
  }
}

describe('a remembered text conversion', () => {
  test('converts a text once, remembers null too, and converts long texts every time', () => {
    const calls: string[] = [];
    const convert = memoizeText((text) => (calls.push(text), text === 'none' ? null : text.length), 100);
    expect([convert('abc'), convert('abc'), convert('none'), convert('none')]).toEqual([3, 3, null, null]);
    expect(calls).toEqual(['abc', 'none']);
    const long = 'x'.repeat(257);
    expect([convert(long), convert(long)]).toEqual([257, 257]);
    expect(calls.filter((text) => text === long)).toHaveLength(2);
  });

  test('forgets the least recently used texts past its bound', () => {
    const calls: string[] = [];
    const convert = memoizeText((text) => (calls.push(text), text), 2);
    for (const text of ['a', 'b', 'a', 'c', 'b']) convert(text);
    // 'b' was pushed out by 'c' (after 'a' was read again), so it is converted again.
    expect(calls).toEqual(['a', 'b', 'c', 'b']);
  });
});

describe('numbers and URLs through the memo', () => {
  const bases = fc.constantFrom(
    'https://shop.example/list/page.html',
    'http://127.0.0.1:8080/a:b/c?x=1#y',
    'https://例え.jp/パス/',
    'file:///data/page.html',
    'https://a.example/10:20/',
  );
  const hrefs = fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      '/item/7',
      '../up',
      '?q=1',
      '#top',
      '//cdn.example/p.png',
      'mailto:x@y.z',
      'http://[bad',
      ' spaced / path ',
      'a\nb',
      '12:34',
      'javascript:void(0)',
    ),
    fc.string({ maxLength: 40 }),
  );

  test('resolve every link exactly as new URL does, asked once or many times', () => {
    fc.assert(
      fc.property(hrefs, bases, (href, base) => {
        const expected = plainUrl(href, base);
        expect(toAbsoluteUrl(href, base)).toBe(expected);
        expect(toAbsoluteUrl(href, base)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  test('read every number exactly as parseLocaleNumber does, asked once or many times', () => {
    const texts = fc.oneof(
      fc.constantFrom('£1,234.50', '1.234,50 €', '−3', 'n/a', '', '12.5k', '0.125', "1'234.50"),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const expected = parseLocaleNumber(text);
        expect(toNumber(text)).toBe(expected);
        expect(toNumber(text)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
