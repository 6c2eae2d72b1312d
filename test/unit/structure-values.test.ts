import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  compileTransform,
  applyTransforms,
  coerceToType,
  parseDateToIso,
  parseJsonPath,
  parseLocaleNumber,
  resolveJsonPath,
  validateSelector,
  validateTransform,
  type TransformContext,
} from '../../src/core/extract/engine/index.js';

const context: TransformContext = { baseUrl: () => 'https://shop.example/a/b.html', parseJson: (text) => JSON.parse(text) };
const run = (value: unknown, transforms: string[]) => applyTransforms(value, transforms.map(compileTransform), context);

describe('numbers as pages write them', () => {
  test.each([
    ['£1,234.50', 1234.5],
    ['1.234,50 €', 1234.5],
    ['$ 12', 12],
    ['1 234,5', 1234.5],
    ['1\u00A0234,50\u00A0€', 1234.5],
    ['12\u202F345,6 CHF', 12345.6],
    ["CHF 1'234.50", 1234.5],
    ['1,234,567', 1234567],
    ['1.234.567,89', 1234567.89],
    ['1,23,456.75', 123456.75],
    ['12,50', 12.5],
    ['0.125', 0.125],
    ['1,234', 1234],
    ['−3,5 °C', -3.5],
    ['-7', -7],
    ['1e3', 1000],
    ['Price: 12.99 (was 15.00)', 12.99],
    ['2 items left, 3 sold', 2],
    ['no digits here', null],
    ['', null],
  ])('%s → %s', (text, expected) => {
    expect(parseLocaleNumber(text)).toBe(expected);
  });

  test('property: a number formatted with two decimals in common locales parses back', () => {
    const locales = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'de-CH', 'en-IN', 'nl-NL', 'pt-BR', 'sv-SE', 'pl-PL'];
    const currencies = ['USD', 'EUR', 'GBP', 'CHF', 'INR', 'SEK'];
    fc.assert(
      fc.property(
        fc.integer({ min: -99_999_999_99, max: 99_999_999_99 }),
        fc.constantFrom(...locales),
        fc.option(fc.constantFrom(...currencies), { nil: undefined }),
        (cents, locale, currency) => {
          const value = cents / 100;
          const format = new Intl.NumberFormat(locale, {
            minimumFractionDigits: 2,
            maximumFractionDigits: 2,
            ...(currency ? { style: 'currency', currency } : {}),
          });
          expect(parseLocaleNumber(format.format(value))).toBeCloseTo(value, 2);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('dates to ISO 8601', () => {
  test.each([
    ['2026-11-22', '2026-11-22'],
    ['2026-11-22T10:30:00Z', '2026-11-22T10:30:00.000Z'],
    ['2026-11-22T12:30:00+02:00', '2026-11-22T10:30:00.000Z'],
    ['2026-11-22 10:30', '2026-11-22T10:30:00'],
    ['22 November 2026', '2026-11-22'],
    ['Published on November 22nd, 2026', '2026-11-22'],
    ['Nov 22, 2026 3:05 pm', '2026-11-22T15:05:00'],
    ['22. März 2026', '2026-03-22'],
    ['22 de noviembre de 2026', '2026-11-22'],
    ['11/05/2025', '2025-11-05'],
    ['25/12/2025', '2025-12-25'],
    ['05.11.2025', '2025-11-05'],
    ['2025/12/31', '2025-12-31'],
    ['Tue, 22 Nov 2026 10:00:00 GMT', '2026-11-22T10:00:00.000Z'],
    ['1795348800', '2026-11-22T12:00:00.000Z'],
    ['31 February 2026', null],
    ['soon', null],
  ])('%s → %s', (text, expected) => {
    expect(parseDateToIso(text)).toBe(expected);
  });

  test('epoch numbers from embedded JSON, seconds and milliseconds', () => {
    expect(parseDateToIso(1795348800)).toBe('2026-11-22T12:00:00.000Z');
    expect(parseDateToIso(1795348800000)).toBe('2026-11-22T12:00:00.000Z');
  });
});

describe('booleans, urls and coercion', () => {
  test.each([
    ['true', true],
    ['Yes', true],
    ['1', true],
    ['In stock', true],
    ['In stock (22 available)', true],
    ['https://schema.org/InStock', true],
    ['false', false],
    ['no', false],
    ['0', false],
    ['Out of stock', false],
    ['Sold out', false],
    ['http://schema.org/OutOfStock', false],
    ['maybe', null],
  ])('%s → %s', (text, expected) => {
    expect(run(text, ['boolean'])).toBe(expected);
    expect(coerceToType(text, 'boolean', context)).toBe(expected);
  });

  test('coercion of each type, null when the value cannot be that type', () => {
    expect(coerceToType('£3.50', 'number', context)).toBe(3.5);
    expect(coerceToType('4.9', 'integer', context)).toBe(4);
    expect(coerceToType('../c.html', 'url', context)).toBe('https://shop.example/c.html');
    expect(coerceToType(42, 'string', context)).toBe('42');
    expect(coerceToType('', 'string', context)).toBeNull();
    expect(coerceToType({ '@type': 'Brand', name: 'Acme' }, 'string', context)).toBe('Acme');
    expect(coerceToType(['first', 'second'], 'string', context)).toBe('first');
    expect(coerceToType('n/a', 'number', context)).toBeNull();
    expect(coerceToType(true, 'number', context)).toBeNull();
    expect(coerceToType('http://[bad', 'url', context)).toBeNull();
  });

  test('transforms stop at the first null', () => {
    expect(run('abc', ['regex:(\\d+)', 'number'])).toBeNull();
    expect(run('  x  ', ['trim'])).toBe('x');
    expect(run('/p?q=1', ['absoluteUrl'])).toBe('https://shop.example/p?q=1');
    expect(run('{"a":{"b":[1,{"c":"deep"}]}}', ['json:a.b[1].c'])).toBe('deep');
    expect(run('{"a":1}', ['json:'])).toEqual({ a: 1 });
  });
});

describe('the plainText transform', () => {
  test('a value holding HTML reads as the text a reader sees: tags dropped, references decoded, blocks spaced', () => {
    expect(run('<p>A <strong>steel</strong> kettle &amp; lid.</p>', ['plainText'])).toBe('A steel kettle & lid.');
    expect(run('<p>One</p><p>Two</p><ul><li>a</li><li>b</li></ul>', ['plainText'])).toBe('One Two a b');
    expect(run('Fish &amp; chips &#8211; &lt;b&gt; stays text', ['plainText'])).toBe('Fish & chips – <b> stays text');
    expect(run('<b>Hello</b>, world<script>alert(1)</script><style>p{}</style>', ['plainText'])).toBe('Hello, world');
    expect(run('  plain   words ', ['plainText'])).toBe('plain words');
    expect(run('<p> </p>', ['plainText'])).toBe('');
  });

  test("a value nested deeper than a page may be has no text: it is parsed within the page's limits", () => {
    const deep = (levels: number) => `${'<b>'.repeat(levels)}deep${'</b>'.repeat(levels)}`;
    expect(run(deep(100), ['plainText'])).toBe('deep');
    expect(run(deep(20_000), ['plainText'])).toBeNull();
  });
});

describe('the availability transform', () => {
  test('schema.org values become their schema.org name, whatever the prefix or case', () => {
    expect(run('https://schema.org/InStock', ['availability'])).toBe('InStock');
    expect(run('http://schema.org/OutOfStock', ['availability'])).toBe('OutOfStock');
    expect(run('schema:PreOrder', ['availability'])).toBe('PreOrder');
    expect(run('instock', ['availability'])).toBe('InStock');
    expect(run(true, ['availability'])).toBe('InStock');
  });

  test("a shop's words in its language are read, a negation before the word it negates", () => {
    expect(run('In stock (22 available)', ['availability'])).toBe('InStock');
    expect(run('Auf Lager', ['availability'])).toBe('InStock');
    expect(run('Disponível', ['availability'])).toBe('InStock');
    expect(run('Nicht lieferbar', ['availability'])).toBe('OutOfStock');
    expect(run('Agotado', ['availability'])).toBe('OutOfStock');
    expect(run('No disponible', ['availability'])).toBe('OutOfStock');
    expect(run('Currently unavailable.', ['availability'])).toBe('OutOfStock');
    expect(run('Нет в наличии', ['availability'])).toBe('OutOfStock');
    expect(run('Pre-order now', ['availability'])).toBe('PreOrder');
    expect(run('Only 3 left in stock', ['availability'])).toBe('LimitedAvailability');
  });

  test('a buy button of one verb is in stock; a sentence about buying says nothing', () => {
    expect(run('Купить', ['availability'])).toBe('InStock');
    expect(run(' Buy ', ['availability'])).toBe('InStock');
    expect(run('Jetzt kaufen!', ['availability'])).toBe('InStock');
    expect(run('Where to buy', ['availability'])).toBeNull();
    expect(run('Buy more, save more', ['availability'])).toBeNull();
  });

  test('text that says nothing about stock is null, not a guess', () => {
    expect(run('Check in-store stock', ['availability'])).toBeNull();
    expect(run('Hayes, United Kingdom', ['availability'])).toBeNull();
    expect(run('', ['availability'])).toBeNull();
  });
});

describe('json paths', () => {
  const doc = {
    '@graph': [
      { '@type': 'WebPage', name: 'Page' },
      { '@type': ['Product'], name: 'P', offers: [{ price: '5' }, { price: '6' }] },
    ],
  };
  test('plain keys first, then a leading schema.org type anywhere', () => {
    expect(resolveJsonPath(doc, parseJsonPath('Product.name'))).toBe('P');
    expect(resolveJsonPath(doc, parseJsonPath('Product.offers.price'))).toBe('5');
    expect(resolveJsonPath(doc, parseJsonPath('Product.offers.1.price'))).toBe('6');
    expect(resolveJsonPath(doc, parseJsonPath('WebPage.name'))).toBe('Page');
    expect(resolveJsonPath(doc, parseJsonPath('@graph.0.name'))).toBe('Page');
    expect(resolveJsonPath(doc, parseJsonPath('Event.name'))).toBeUndefined();
  });

  test('a leading type matches whatever its case or prefix (pages write `product`, `schema:Product`)', () => {
    const lower = { '@type': 'product', offers: { '@type': 'offer', price: '12.50' } };
    expect(resolveJsonPath(lower, parseJsonPath('Product.offers.price'))).toBe('12.50');
    expect(resolveJsonPath([{ '@type': 'schema:Product', sku: 'A1' }], parseJsonPath('Product.sku'))).toBe('A1');
    expect(resolveJsonPath({ '@type': 'http://schema.org/PRODUCT', sku: 'B2' }, parseJsonPath('product.sku'))).toBe('B2');
    expect(resolveJsonPath({ '@type': 'ProductGroup', sku: 'C3' }, parseJsonPath('Product.sku'))).toBeUndefined();
  });

  test('malformed paths are rejected', () => {
    expect(() => parseJsonPath('a..b')).toThrow(/empty segment/);
    expect(() => parseJsonPath('a.')).toThrow(/empty segment/);
    expect(parseJsonPath('a[2].b')).toEqual(['a', '2', 'b']);
  });
});

describe('validation of selectors and transforms', () => {
  test('validateSelector returns null or the parser message', () => {
    expect(validateSelector('article.product > h3 a[title]')).toBeNull();
    expect(validateSelector(':scope > td:nth-child(2)')).toBeNull();
    expect(validateSelector('> td')).toBeNull();
    expect(validateSelector('div[')).toMatch(/Expected name/);
    expect(validateSelector('a::before')).toMatch(/Pseudo-elements/);
    expect(validateSelector('   ')).toBe('selector is empty');
  });

  test('validateTransform checks capture groups, regex syntax and json paths', () => {
    for (const ok of [
      'trim',
      'number',
      'integer',
      'boolean',
      'absoluteUrl',
      'date',
      'availability',
      'regex:(\\d+)',
      'regex:(?:x)(y)',
      'json:Product.offers.price',
      'json:',
    ]) {
      expect(validateTransform(ok), ok).toBeNull();
    }
    expect(validateTransform('regex:\\d+')).toMatch(/exactly one capture group, it has 0/);
    expect(validateTransform('regex:(a)(b)')).toMatch(/it has 2/);
    expect(validateTransform('regex:(unclosed')).toMatch(/Invalid regular expression/);
    expect(validateTransform('json:a..b')).toMatch(/empty segment/);
    expect(validateTransform('uppercase')).toMatch(/unknown transform/);
  });
});
