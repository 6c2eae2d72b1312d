import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { charsetFromContentType, charsetFromMeta, decodeHtmlBody, sniffUndeclared } from '../../src/core/fetch/net/charset.js';

const latin1Bytes = (text: string) => Buffer.from(text, 'latin1');

describe('charset decoding', () => {
  it('reads the charset parameter of a Content-Type, quoted or not', () => {
    expect(charsetFromContentType('text/html; charset=Shift_JIS')).toBe('Shift_JIS');
    expect(charsetFromContentType('text/html;charset="windows-1252"')).toBe('windows-1252');
    expect(charsetFromContentType('text/html')).toBeUndefined();
    expect(charsetFromContentType(undefined)).toBeUndefined();
  });

  it('finds <meta charset> and <meta http-equiv> declarations', () => {
    expect(charsetFromMeta(latin1Bytes('<html><head><meta charset="euc-jp">'))).toBe('euc-jp');
    expect(charsetFromMeta(latin1Bytes("<meta http-equiv='content-type' content='text/html; charset=iso-8859-15'>"))).toBe('iso-8859-15');
    expect(charsetFromMeta(latin1Bytes('<META CHARSET=gbk>'))).toBe('gbk');
    expect(charsetFromMeta(latin1Bytes('<p>charset=utf-16 in text is not a declaration</p>'))).toBeUndefined();
  });

  it('uses the header first, then the meta tag, then a detection', () => {
    const bytes = Buffer.concat([latin1Bytes('<meta charset="shift_jis"><p>'), Buffer.from([0xe9]), latin1Bytes('</p>')]);
    expect(decodeHtmlBody(bytes, 'text/html; charset=windows-1252')).toMatchObject({ charset: 'windows-1252', source: 'header' });
    expect(decodeHtmlBody(bytes, 'text/html; charset=windows-1252').text).toContain('<p>é</p>');
    expect(decodeHtmlBody(bytes, 'text/html')).toMatchObject({ charset: 'shift_jis', source: 'meta' });
    const plain = decodeHtmlBody(Buffer.from('<p>naïve</p>'), undefined);
    expect(plain).toMatchObject({ text: '<p>naïve</p>', charset: 'utf-8', source: 'detected' });
  });

  it('skips labels the platform does not know and falls through to the next source', () => {
    const decoded = decodeHtmlBody(latin1Bytes('<meta charset="windows-1252"><p>\xe9</p>'), 'text/html; charset=no-such-charset');
    expect(decoded).toMatchObject({ charset: 'windows-1252', source: 'meta' });
    expect(decoded.text).toContain('<p>é</p>');
  });

  it('lets a byte order mark win and strips it', () => {
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>ü</p>')]);
    expect(decodeHtmlBody(utf8, 'text/html; charset=windows-1252')).toEqual({ text: '<p>ü</p>', charset: 'utf-8', source: 'bom' });
    const utf16be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('<p>東</p>', 'utf16le').swap16()]);
    expect(decodeHtmlBody(utf16be, undefined)).toMatchObject({ text: '<p>東</p>', charset: 'utf-16be' });
  });

  it('treats a UTF-16 meta declaration as UTF-8, as browsers do', () => {
    expect(decodeHtmlBody(Buffer.from('<meta charset="utf-16"><p>ü</p>'), undefined)).toMatchObject({
      charset: 'utf-8',
      text: '<meta charset="utf-16"><p>ü</p>',
    });
  });
});

describe('pages that declare no charset (WHATWG sniffing, then a detection)', () => {
  const menu = '<html><head><title>Carta</title></head><body><h1>Menú café</h1><p>Crème brûlée – 5 €</p></body></html>';

  it('reads an undeclared windows-1252 page as windows-1252, not as broken UTF-8, and says it guessed', () => {
    const bytes = Buffer.from(new Uint8Array([...menu].map((char) => (char === '–' ? 0x96 : char === '€' ? 0x80 : char.charCodeAt(0)))));
    for (const contentType of [undefined, 'text/html']) {
      const read = decodeHtmlBody(bytes, contentType);
      expect(read).toMatchObject({ charset: 'windows-1252', source: 'detected' });
      expect(read.text).toBe(menu);
      expect(read.text).not.toContain('\ufffd');
    }
    expect(sniffUndeclared(bytes, 'text/html')).toEqual({
      charset: { encoding: 'windows-1252', source: 'guessed' },
      contentType: 'text/html; charset=windows-1252',
    });
  });

  it('reads undeclared valid UTF-8 as UTF-8 (a detection too), and plain ASCII as UTF-8 without a guess', () => {
    expect(decodeHtmlBody(Buffer.from(menu), undefined)).toMatchObject({ text: menu, charset: 'utf-8', source: 'detected' });
    expect(sniffUndeclared(Buffer.from(menu), undefined).charset).toEqual({ encoding: 'utf-8', source: 'guessed' });
    expect(decodeHtmlBody(Buffer.from('<p>plain</p>'), undefined)).toMatchObject({ charset: 'utf-8', source: 'default' });
    expect(sniffUndeclared(Buffer.from('<p>plain</p>'), 'text/html').charset).toEqual({ encoding: 'utf-8', source: 'declared' });
  });

  it('finds a meta declaration past comments and other tags as the prescan does, and only in markup', () => {
    const page = latin1Bytes(
      `<!-- <meta charset="koi8-r"> --><html><head><meta name="x" content="y"><meta charset="iso-8859-2"><p>\xb1</p>`,
    );
    expect(decodeHtmlBody(page, undefined)).toMatchObject({ charset: 'iso-8859-2', source: 'meta' });
    expect(decodeHtmlBody(page, undefined).text).toContain('<p>ą</p>');
    expect(sniffUndeclared(page, undefined).charset).toEqual({ encoding: 'iso-8859-2', source: 'declared' });
  });

  it('leaves a declared header charset and a byte order mark alone (no sniffing, no note)', () => {
    expect(sniffUndeclared(Buffer.from(menu), 'text/html; charset=utf-8')).toEqual({ contentType: 'text/html; charset=utf-8' });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(menu)]);
    expect(sniffUndeclared(bom, undefined)).toEqual({ contentType: undefined });
  });
});

describe('windows-1252 on Node 20', () => {
  it('maps 0x80–0x9F to the WHATWG characters, not to C1 controls', () => {
    const bytes = Buffer.from([0x80, 0x20, 0x93, 0x71, 0x94, 0x20, 0x96, 0x20, 0x99, 0x20, 0x9f, 0x20, 0xe9]);
    expect(decodeHtmlBody(bytes, 'text/html; charset=windows-1252').text).toBe('€ “q” – ™ Ÿ é');
    // iso-8859-1 and us-ascii are windows-1252 by WHATWG label rules.
    expect(decodeHtmlBody(Buffer.from([0x80]), 'text/html; charset=iso-8859-1').text).toBe('€');
  });
});

describe('UTF-8 pages of any length read exactly as TextDecoder reads them', () => {
  const decoder = new TextDecoder('utf-8');
  const padding = '<p>' + 'plain ascii text '.repeat(80) + '</p>';
  // Strings of every plane (lone surrogates become U+FFFD when encoded), long enough for the transcoder path.
  const pages = fc
    .tuple(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }))
    .map(([a, b]) => `${a}${padding}${b}`);

  it('valid UTF-8 (ASCII or not, Latin-1 or beyond, header, meta or default) is the text that was encoded', () => {
    fc.assert(
      fc.property(pages, fc.constantFrom('text/html; charset=utf-8', 'text/html; charset=UTF8', undefined), (page, contentType) => {
        const bytes = Buffer.from(page);
        const read = decodeHtmlBody(bytes, contentType);
        expect(read.charset).toBe('utf-8');
        expect(read.text).toBe(decoder.decode(bytes));
      }),
      { numRuns: 400 },
    );
  });

  it('bytes that are not valid UTF-8 get TextDecoder’s replacement characters', () => {
    const broken = fc.tuple(pages, fc.uint8Array({ minLength: 1, maxLength: 12 }), fc.nat()).map(([page, junk, at]) => {
      const bytes = Buffer.from(page);
      const cut = at % bytes.length;
      return Buffer.concat([bytes.subarray(0, cut), Buffer.from(junk), bytes.subarray(cut)]);
    });
    fc.assert(
      fc.property(broken, (bytes) => {
        expect(decodeHtmlBody(bytes, 'text/html; charset=utf-8').text).toBe(decoder.decode(bytes));
      }),
      { numRuns: 400 },
    );
    const truncated = Buffer.concat([
      Buffer.from(padding),
      Buffer.from([0xe6, 0x9d]),
      Buffer.from(' £ '),
      Buffer.from([0xed, 0xa0, 0x80, 0xc0, 0xaf, 0xff]),
    ]);
    expect(decodeHtmlBody(truncated, 'text/html; charset=utf-8').text).toBe(decoder.decode(truncated));
    expect(decodeHtmlBody(truncated, 'text/html; charset=utf-8').text).toContain('\ufffd');
  });

  it('a long page with a byte order mark still loses the mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${padding}<p>ü 東</p>`)]);
    expect(decodeHtmlBody(bytes, 'text/html; charset=utf-8').text).toBe(`${padding}<p>ü 東</p>`);
  });
});
