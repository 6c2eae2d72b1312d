import fc from 'fast-check';
import { removeSubsets } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { describe, expect, test } from 'vitest';
import { compileSelector, documentBaseUrl, parseHtml, sectionRoots, type Element } from '../../src/core/structure/dom.js';

/**
 * Two shortcuts of the DOM layer checked against the plain walks they replace: a section's top-most matches
 * found without walking inside a match, and a document's base URL found without a walk when the parse saw
 * no <base>. Documents from htmlparser2's own parseDocument take the plain walks, so both ways meet here.
 */

const TAGS = ['div', 'section', 'article', 'p', 'span', 'main', 'body', 'template', 'ul', 'li'];
const CLASSES = ['', 'item', 'card', 'item card'];

/** Random nested markup: the same tag inside itself, classes, templates, text and comments. */
const markup: fc.Arbitrary<string> = fc.letrec<{ node: string; nodes: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('text', ' ', '<!-- note -->', '<br>'),
    fc.tuple(fc.constantFrom(...TAGS), fc.constantFrom(...CLASSES), tie('nodes')).map(([tag, cls, inner]) => `<${tag}${cls ? ` class="${cls}"` : ''}>${inner}</${tag}>`),
  ),
  nodes: fc.array(tie('node'), { maxLength: 4 }).map((parts) => parts.join('')),
})).nodes;

const SELECTORS = ['div', 'section', '.item', '.card', 'div.item', 'article, section', 'li', 'body', 'main > div', 'div div', 'span:first-child', '*', 'template', ':scope > div', 'p + p'];

describe('top-most matches of a section selector', () => {
  test('are those of selecting every match and removing the ones inside another, in document order', () => {
    fc.assert(
      fc.property(markup, fc.constantFrom(...SELECTORS), (html, selector) => {
        const doc = parseHtml(html);
        const compiled = compileSelector(selector);
        expect(compiled.selectTopMost(doc)).toEqual(removeSubsets(compiled.select(doc)));
      }),
      { numRuns: 400 },
    );
  });

  test('a section inside a section is left to its outer one, and template contents are not searched', () => {
    const doc = parseHtml('<main><div class="a"><div class="b"></div></div><template><div class="t"></div></template><div class="c"></div></main>');
    expect(sectionRoots(doc, 'div').map((element) => (element as Element).attribs.class)).toEqual(['a', 'c']);
  });
});

describe('the base URL of a parsed document', () => {
  const FINAL = 'https://shop.example/list/page.html';
  const pages = [
    '<p>no base at all</p>',
    '<head><base href="/catalogue/"></head><body></body>',
    '<HEAD><BASE HREF="https://cdn.example/root/"></HEAD>',
    '<base target="_blank"><base href="sub/">',
    '<body><p>late</p><base href="/in-body/"></body>',
    '<base href="http://[bad">',
    '<svg><base href="/svg/"></svg>',
  ];

  test.each(pages)('is the same with or without the shortcut: %s', (html) => {
    expect(documentBaseUrl(parseHtml(html), FINAL)).toBe(documentBaseUrl(parseDocument(html), FINAL));
  });

  test('with no <base>, is the final URL; with one, the href resolved against it', () => {
    expect(documentBaseUrl(parseHtml(pages[0]!), FINAL)).toBe(FINAL);
    expect(documentBaseUrl(parseHtml(pages[1]!), FINAL)).toBe('https://shop.example/catalogue/');
    expect(documentBaseUrl(parseHtml(pages[2]!), FINAL)).toBe('https://cdn.example/root/');
    expect(documentBaseUrl(parseHtml(pages[3]!), FINAL)).toBe('https://shop.example/list/sub/');
  });
});
