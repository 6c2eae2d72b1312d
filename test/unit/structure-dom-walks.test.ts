import fc from 'fast-check';
import { getOuterHTML, removeSubsets } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { describe, expect, test } from 'vitest';
import { compileSelector, documentBaseUrl, parseHtml, sectionRoots, type Element } from '../../src/core/extract/engine/dom.js';
import { randomMarkup } from '../support/random-markup.js';

/**
 * Two shortcuts of the DOM layer checked against the plain walks they replace: a section's top-most matches
 * found without walking inside a match, and a document's base URL found without a walk when the parse saw
 * no <base>. Documents from htmlparser2's own parseDocument take the plain walks, so both ways meet here.
 */

const TAGS = ['div', 'section', 'article', 'p', 'span', 'main', 'body', 'template', 'ul', 'li'];
const CLASSES = ['', 'item', 'card', 'item card'];

/** Random nested markup: the same tag inside itself, classes, templates, text and comments. */
const markup = randomMarkup(TAGS, CLASSES);

const SELECTORS = [
  'div',
  'section',
  '.item',
  '.card',
  'div.item',
  'article, section',
  'li',
  'body',
  'main > div',
  'div div',
  'span:first-child',
  '*',
  'template',
  ':scope > div',
  'p + p',
];

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
    const doc = parseHtml(
      '<main><div class="a"><div class="b"></div></div><template><div class="t"></div></template><div class="c"></div></main>',
    );
    expect(sectionRoots(doc, 'div').map((element) => (element as Element).attribs.class)).toEqual(['a', 'c']);
  });
});

describe('a column selector taken directly (`> :nth-child(n)`)', () => {
  const columns = [
    '> :nth-child(1)',
    '> :nth-child(2)',
    '> div:nth-child(2)',
    '>li:nth-child( 3 )',
    '> *:nth-child(1)',
    '> SPAN:nth-child(1)',
  ];

  test('matches what css-select matches for the same selector written with :scope, in every scope', () => {
    fc.assert(
      fc.property(markup, fc.constantFrom(...columns), (html, selector) => {
        const doc = parseHtml(`<main>${html}</main>`);
        const general = compileSelector(selector.replace(/^>/, ':scope >'));
        const direct = compileSelector(selector);
        const scopes = compileSelector('*').select(doc);
        for (const scope of scopes) {
          expect(direct.select(scope)).toEqual(general.select(scope));
          expect(direct.selectFirst(scope)).toBe(general.selectFirst(scope));
          expect(direct.selectTopMost(scope)).toEqual(general.selectTopMost(scope));
        }
        expect(direct.select(scopes)).toEqual(general.select(scopes));
        expect(direct.selectFirst(scopes)).toBe(general.selectFirst(scopes));
      }),
      { numRuns: 300 },
    );
  });

  test('reads a table row by row, a cell that is not of the asked tag giving nothing', () => {
    const rows = compileSelector('tr').select(parseHtml('<table><tr><th>a</th><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>'));
    const text = (element: Element | null) => (element?.children[0] as { data?: string } | undefined)?.data ?? null;
    expect(rows.map((row) => text(compileSelector('> :nth-child(2)').selectFirst(row)))).toEqual(['b', 'd']);
    expect(rows.map((row) => text(compileSelector('> td:nth-child(1)').selectFirst(row)))).toEqual([null, 'c']);
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

describe('row-spanning cells, found by the parse rather than by a scan of the text', () => {
  const copies = (html: string) => (getOuterHTML(parseHtml(html)).match(/data-pagejson-span="row"/g) ?? []).length;

  test('a cell spanning rows is copied into the rows it spans, whatever the case of the attribute', () => {
    expect(copies('<table><tr><td rowspan="2">a</td><td>b</td></tr><tr><td>c</td></tr></table>')).toBe(1);
    expect(copies('<TABLE><TR><TD ROWSPAN=3>a</TD><TD>b</TD></TR><TR><TD>c</TD></TR><TR><TD>d</TD></TR></TABLE>')).toBe(2);
    expect(copies('<table><tr><th RowSpan="2">a</th><td>b</td></tr><tr><td>c</td></tr></table>')).toBe(1);
  });

  test('the word in text, a comment or another attribute changes nothing', () => {
    const html = '<table><tr><td title="rowspan">rowspan</td><td>b</td></tr><!-- rowspan="2" --><tr><td>c</td></tr></table>';
    expect(getOuterHTML(parseHtml(html))).toBe(getOuterHTML(parseDocument(html)));
  });
});
