/**
 * Decoding a page's bytes into text the way browsers do (the WHATWG encoding sniffing algorithm): a byte
 * order mark wins, then the charset of the Content-Type header, then the prescan of the document's start for
 * `<meta charset>`, `<meta http-equiv="content-type">` or an XML declaration (encoding-sniffer, fb55), then a
 * detection: bytes that are valid UTF-8 are UTF-8, others windows-1252, as browsers guess for an undeclared
 * Western page (docs/decisions.md, "Pages that declare no charset"). Node ships full ICU, so `TextDecoder`
 * knows windows-1252, Shift_JIS, EUC-KR, GBK and the rest by their WHATWG labels.
 * It lives in `shared` because the extraction thread decodes the bytes it is handed, and must not load the
 * fetch stage (its HTTP client, stores and pools) to do so (docs/performance.md).
 */
import { isAscii, isUtf8, transcode } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';

/** The encoding a page was read in, and whether the page said so or it was guessed. */
export interface PageCharset {
  /** The WHATWG name, e.g. `windows-1252`, `utf-8`. */
  encoding: string;
  source: 'declared' | 'guessed';
}

/** `detected`: the page declares no charset and its bytes decided (a guess, noted in the fetch's details). */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'detected' | 'default';

export interface DecodedBody {
  text: string;
  /** The encoding's canonical name as `TextDecoder` reports it, e.g. `windows-1252`, `shift_jis`. */
  charset: string;
  source: CharsetSource;
}

/** Browsers look at the first 1024 bytes; pages with long head comments push the tag further, so allow more. */
const META_PRESCAN_BYTES = 4096;
/** The encoding guessed for bytes that are not UTF-8: the WHATWG default for Western locales, as browsers there use. */
const UNDECLARED_LEGACY_ENCODING = 'windows-1252';

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const label = (match?.[1] ?? match?.[2] ?? '').trim();
  return label === '' ? undefined : label;
}

function charsetFromBom(bytes: Uint8Array): { charset: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', length: 3 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: 'utf-16be', length: 2 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: 'utf-16le', length: 2 };
  return undefined;
}

/**
 * The encoding the document's start declares (a meta tag or an XML declaration), by the WHATWG prescan of
 * its first bytes; undefined when it declares none.
 */
export function charsetFromMeta(bytes: Uint8Array): string | undefined {
  const sniffer = new Sniffer({ maxBytes: META_PRESCAN_BYTES });
  sniffer.write(bytes.subarray(0, META_PRESCAN_BYTES));
  const declared = sniffer.resultType === ResultType.META_TAG || sniffer.resultType === ResultType.XML_ENCODING;
  return declared ? sniffer.encoding.toLowerCase() : undefined;
}

/**
 * The encoding of a page that declares none (no BOM, header charset or meta tag): plain ASCII reads alike in
 * every ASCII-compatible encoding (UTF-8, no guess); valid UTF-8 is UTF-8 (a legacy text that happens to be
 * valid UTF-8 is rare); anything else is windows-1252, the default browsers of Western locales use.
 */
function undeclaredCharset(bytes: Uint8Array): { label: string; source: CharsetSource } {
  if (isAscii(bytes)) return { label: 'utf-8', source: 'default' };
  return { label: isUtf8(bytes) ? 'utf-8' : UNDECLARED_LEGACY_ENCODING, source: 'detected' };
}

/**
 * Node 20's TextDecoder decodes windows-1252 as ISO-8859-1 (a latin1 fast path), turning €, curly quotes
 * and dashes (0x80–0x9F) into control characters. Those 32 code points are mapped here by the WHATWG table.
 */
const WINDOWS_1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019,
  0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/**
 * UTF-8 as text. Once a page holds one non-ASCII byte, TextDecoder (V8's UTF-8 decoder) reads it in two scalar
 * passes, ~1.3 ns a byte: 130 µs for a 100 KB page, a tenth of an extraction. Valid UTF-8 has exactly one
 * decoding, and ICU's transcoder to UTF-16 gives it ~3× faster; ASCII keeps TextDecoder's own fast path, and
 * bytes that are not valid UTF-8 keep TextDecoder, whose replacement of bad sequences is the WHATWG one.
 */
function decodeUtf8(decoder: TextDecoder, bytes: Uint8Array): string {
  // Short texts gain nothing. A byte order mark never reaches here: decodeHtmlBody reads and strips it first.
  if (bytes.length < 1024 || isAscii(bytes) || !isUtf8(bytes)) return decoder.decode(bytes);
  try {
    return transcode(bytes, 'utf8', 'ucs2').toString('ucs2');
  } catch {
    // A Node built without ICU has no transcoder.
    return decoder.decode(bytes);
  }
}

function decodeWith(decoder: TextDecoder, bytes: Uint8Array): string {
  if (decoder.encoding === 'utf-8') return decodeUtf8(decoder, bytes);
  const text = decoder.decode(bytes);
  if (decoder.encoding !== 'windows-1252') return text;
  return text.replace(/[\x80-\x9f]/g, (char) => String.fromCharCode(WINDOWS_1252_C1[char.charCodeAt(0) - 0x80] ?? char.charCodeAt(0)));
}

/** A decoder for a WHATWG label, or undefined when the label is unknown to the platform. */
function decoderFor(label: string, source: CharsetSource): TextDecoder | undefined {
  let normalized = label.trim().toLowerCase();
  // A page cannot truly be UTF-16 if its ASCII meta tag was readable: browsers treat that as UTF-8.
  if (source === 'meta' && normalized.startsWith('utf-16')) normalized = 'utf-8';
  if (normalized === 'x-user-defined') normalized = 'windows-1252';
  try {
    return new TextDecoder(normalized, { fatal: false });
  } catch {
    return undefined;
  }
}

export function decodeHtmlBody(bytes: Uint8Array, contentType: string | undefined): DecodedBody {
  const bom = charsetFromBom(bytes);
  if (bom) {
    const decoder = new TextDecoder(bom.charset, { ignoreBOM: true });
    return { text: decoder.decode(bytes.subarray(bom.length)), charset: decoder.encoding, source: 'bom' };
  }
  const { decoder, source } = chooseDecoder(bytes, contentType);
  return { text: decodeWith(decoder, bytes), charset: decoder.encoding, source };
}

/** The decoder of a page without a BOM: its header's charset (the hot path: nothing else is read), else as sniffed. */
function chooseDecoder(bytes: Uint8Array, contentType: string | undefined): { decoder: TextDecoder; source: CharsetSource } {
  const header = charsetFromContentType(contentType);
  const fromHeader = header === undefined ? undefined : decoderFor(header, 'header');
  if (fromHeader) return { decoder: fromHeader, source: 'header' };
  const meta = charsetFromMeta(bytes);
  const fromMeta = meta === undefined ? undefined : decoderFor(meta, 'meta');
  if (fromMeta) return { decoder: fromMeta, source: 'meta' };
  const { label, source } = undeclaredCharset(bytes);
  return { decoder: new TextDecoder(label), source };
}

/**
 * How a page's bytes were read, for the fetch's details. Decided once, where the page is fetched, and only
 * for a page whose header declares no charset (a declared one costs nothing here): the charset is then
 * written into the body's Content-Type, so the extraction thread decodes by it without sniffing again.
 */
export function sniffUndeclared(
  bytes: Uint8Array,
  contentType: string | undefined,
): { charset?: PageCharset; contentType: string | undefined } {
  if (charsetFromContentType(contentType) !== undefined) return { contentType };
  const bom = charsetFromBom(bytes);
  if (bom) return { contentType };
  const { decoder, source } = chooseDecoder(bytes, undefined);
  const declared = `${contentType?.split(';')[0]?.trim() || 'text/html'}; charset=${decoder.encoding}`;
  return { charset: { encoding: decoder.encoding, source: source === 'detected' ? 'guessed' : 'declared' }, contentType: declared };
}
