import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseHtml, selectIn, selectsOnly } from '../../src/core/extract/page/dom.js';

/**
 * `selectsOnly` stops at the first unexpected match instead of collecting every match (detectors try many
 * candidate selectors on 1 MB pages): checked against what `selectIn` finds, on random markup.
 */
const TAGS = ['div', 'section', 'p', 'span', 'ul', 'li', 'template', 'a'];
const CLASSES = ['', 'item', 'card', 'item card'];
const markup: fc.Arbitrary<string> = fc.letrec<{ node: string; nodes: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('text', '<!-- note -->', '<br>'),
    fc
      .tuple(fc.constantFrom(...TAGS), fc.constantFrom(...CLASSES), tie('nodes'))
      .map(([tag, cls, inner]) => `<${tag}${cls ? ` class="${cls}"` : ''}>${inner}</${tag}>`),
  ),
  nodes: fc.array(tie('node'), { maxLength: 4 }).map((parts) => parts.join('')),
})).nodes;
const SELECTORS = [
  'div',
  '.item',
  'span.card',
  'li',
  'ul > li',
  'p + p',
  'p ~ span',
  'div:has(> .card)',
  '*',
  'template div',
  'section :first-child',
];

describe('a selector matching exactly some elements', () => {
  test('is told as selectIn tells it, for the exact matches, a subset, a superset and others', () => {
    fc.assert(
      fc.property(markup, fc.constantFrom(...SELECTORS), fc.nat(), fc.boolean(), (html, selector, pick, fromDocument) => {
        const doc = parseHtml(`<main>${html}</main>`);
        const roots = fromDocument ? doc : (selectIn('main', doc) as never);
        const found = selectIn(selector, roots);
        const all = selectIn('*', doc);
        const others = all.filter((element) => !found.includes(element));
        const other = others[pick % Math.max(1, others.length)];
        const sets = [found, found.slice(1), other ? [...found, other] : found, other ? [other] : []];
        for (const expected of sets) {
          const exact = expected.length === found.length && new Set([...expected, ...found]).size === found.length;
          expect(selectsOnly(selector, roots, expected)).toBe(exact);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a selector that does not parse matches nothing', () => {
    expect(selectsOnly('div[', parseHtml('<div></div>'), [])).toBe(false);
  });
});
