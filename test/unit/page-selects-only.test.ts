import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { firstDescendant, parseHtml, selectIn, selectsOnly } from '../../src/core/extract/page/dom.js';
import { randomMarkup } from '../support/random-markup.js';

/**
 * `selectsOnly` stops at the first unexpected match instead of collecting every match (detectors try many
 * candidate selectors on 1 MB pages), and answers simple selectors from an index of roots checked before:
 * both checked against what `selectIn` finds, on random markup, each roots checked several times.
 */
const TAGS = ['div', 'section', 'p', 'span', 'ul', 'li', 'template', 'a'];
const CLASSES = ['', 'item', 'card', 'item card', 'card  item', 'item" id="main', 'x" id="main'];
const markup = randomMarkup(TAGS, CLASSES);
const SELECTORS = [
  'div',
  'div.item.card',
  'p#main',
  'li.item',
  'template',
  'a.x',
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

describe('the first descendant passing a test', () => {
  test('is the first match css-select finds below the element, template contents left out', () => {
    fc.assert(
      fc.property(markup, fc.constantFrom(...TAGS), (html, tag) => {
        const doc = parseHtml(`<main>${html}</main>`);
        for (const root of selectIn('*', doc))
          expect(firstDescendant(root, (element) => element.name === tag)).toBe(selectIn(tag, root)[0] ?? null);
      }),
      { numRuns: 300 },
    );
  });
});

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

  test('simple selectors answered from the index of roots checked before tell near misses apart', () => {
    const doc = parseHtml(
      '<main><div class="item">a</div><div class="item card" id="one">b</div><p class="card">c</p>' +
        '<template><div class="item card">t</div></template><section><div class="card item extra">d</div></section></main>',
    );
    const [main] = selectIn('main', doc);
    for (const roots of [doc, [main!], main!]) {
      const exactly = (selector: string) => selectIn(selector, roots);
      // Several rounds: the first check walks, the later ones read the index.
      for (let round = 0; round < 3; round += 1) {
        expect(selectsOnly('div.item.card', roots, exactly('div.item.card'))).toBe(true);
        expect(exactly('div.item.card')).toHaveLength(2);
        expect(selectsOnly('div.item.card', roots, exactly('div.item'))).toBe(false);
        expect(selectsOnly('div#one', roots, exactly('div.item.card').slice(0, 1))).toBe(true);
        expect(selectsOnly('p.card', roots, exactly('.card'))).toBe(false);
        expect(selectsOnly('main', roots, exactly('main'))).toBe(true);
        expect(selectsOnly('section', roots, [])).toBe(false);
      }
    }
  });

  test('a selector that does not parse matches nothing', () => {
    expect(selectsOnly('div[', parseHtml('<div></div>'), [])).toBe(false);
  });
});
