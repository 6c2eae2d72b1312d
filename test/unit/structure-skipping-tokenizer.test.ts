import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DomHandler } from 'domhandler';
import { getOuterHTML } from 'domutils';
import { Parser, type Tokenizer } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../src/core/extract/engine/dom.js';
import { hasTokenizerInternals, parseEvents, parserOptions, SkippingTokenizer } from '../../src/core/extract/engine/skipping-tokenizer.js';

const fixtures = join(import.meta.dirname, '../fixtures');

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

/** Pieces of markup chosen for the states the skipping tokenizer shortens and the edges around them. */
const piece = fc.oneof(
  fc.constantFrom('<', '>', '&', '"', "'", '=', '/', '!', '?', '-', ' ', '\n', '\t', '\r', '\f', ';', '#', 'x', '[', ']'),
  fc.constantFrom('&amp;', '&lt;', '&copy', '&#169;', '&#xA9;', '&nosuch;', '&am', '&#', '&#x'),
  fc.constantFrom(
    '<p>',
    '</p>',
    '<P class=x>',
    '<div id="a&amp;b">',
    "<a href='/q?a=1&b=2'>",
    '</a >',
    '<br/>',
    '<img src=x alt="a > b">',
    '</div\n>',
  ),
  fc.constantFrom(
    '<script>',
    '</script>',
    '<style>',
    '</style>',
    '<title>',
    '</title>',
    '<textarea>',
    '</textarea>',
    '<svg>',
    '</svg>',
    '<math>',
  ),
  fc.constantFrom('<!--', '-->', '--!>', '<![CDATA[', ']]>', '<!DOCTYPE html>', '<?xml ?>', '<!x>', '</>', '< p>', '<1>'),
  fc.stringMatching(/^[a-zA-Z0-9 ]{0,12}$/),
);
const markup = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(''));

describe('the skipping tokenizer', () => {
  it('is used: the installed htmlparser2 has the internals it overrides and reads the probe page the same', () => {
    expect(hasTokenizerInternals()).toBe(true);
    expect(parserOptions().Tokenizer).toBe(SkippingTokenizer);
  });

  it('makes the same callbacks at the same positions as the stock tokenizer, in one chunk or many', () => {
    fc.assert(
      fc.property(markup, fc.integer({ min: 1, max: 7 }), (html, chunks) => {
        expect(parseEvents(html, 'skipping')).toEqual(parseEvents(html, 'stock'));
        expect(parseEvents(html, 'skipping', chunks)).toEqual(parseEvents(html, 'stock', chunks));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a page streamed in equal chunks as the stock tokenizer does (an `&` in the second of two equal chunks)', () => {
    const html = '<div id="a&amp;b"><div id="a&amp;b">';
    expect(parseEvents(html, 'skipping', 4)).toEqual(parseEvents(html, 'stock', 4));
    expect(parseEvents('a&amp;a&amp;a&amp;', 'skipping', 3)).toEqual(parseEvents('a&amp;a&amp;a&amp;', 'stock', 3));
  });

  it('makes the same callbacks on every page of the fixtures', () => {
    const files = htmlFiles(fixtures);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const html = readFileSync(file, 'utf8');
      expect(parseEvents(html, 'skipping'), file).toEqual(parseEvents(html, 'stock'));
    }
  });

  it('builds the same document as the stock tokenizer, and parseHtml reads pages with it', () => {
    for (const file of htmlFiles(fixtures)) {
      const html = readFileSync(file, 'utf8');
      const [stock, skipping] = [new DomHandler(), new DomHandler()];
      new Parser(stock).end(html);
      new Parser(skipping, { Tokenizer: SkippingTokenizer as unknown as typeof Tokenizer }).end(html);
      expect(getOuterHTML(skipping.root.children), file).toBe(getOuterHTML(stock.root.children));
      // parseHtml copies row-spanning cells into the rows they span (reading.ts): compared where there are none.
      if (!/rowspan/i.test(html)) expect(getOuterHTML(parseHtml(html).children), file).toBe(getOuterHTML(stock.root.children));
    }
  });

  it('visits the characters that matter, not every character of a text run or attribute value', () => {
    let textCalls = 0;
    let valueCalls = 0;
    class Counting extends SkippingTokenizer {
      override stateText(c: number): void {
        textCalls += 1;
        super.stateText(c);
      }
      override handleInAttributeValue(c: number, quote: number): void {
        valueCalls += 1;
        super.handleInAttributeValue(c, quote);
      }
    }
    const text = 'lorem ipsum dolor sit amet '.repeat(400);
    new Parser({}, { Tokenizer: Counting as unknown as typeof Tokenizer }).end(`<p title="${text}">${text} &amp; ${text}</p>`);
    // The stock tokenizer calls each of these once per character (~10,800 each); here a few times per run.
    expect(textCalls).toBeLessThan(20);
    expect(valueCalls).toBeLessThan(10);
  });
});
