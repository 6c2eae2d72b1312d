/** A fetched page's bytes as a page object whose text is decoded lazily (the decoding itself: shared/charset). */
import { decodeHtmlBody, sniffUndeclared, type PageCharset } from '../../shared/index.js';
import type { PageBody } from '../scrapers/types.js';
import { PagejsonError } from '../../shared/index.js';

export { charsetFromContentType, charsetFromMeta, decodeHtmlBody, sniffUndeclared, type DecodedBody } from '../../shared/index.js';

/**
 * A fetched page whose text is decoded on first read, once: the daemon hands the bytes to the extraction
 * worker and never needs the text on its own thread (a 100 KB page decoded there was 7% of a miss's main
 * thread, and the string its largest garbage).
 */
export function pageFromBytes<T extends object>(
  fields: T,
  bytes: Uint8Array,
  received: string | undefined,
): T & { readonly html: string; body: PageBody; charset?: PageCharset } {
  let html: string | undefined;
  const { charset, contentType } = sniffUndeclared(bytes, received);
  const body: PageBody = { bytes, contentType };
  const length = bytes.byteLength;
  const text = (): string => {
    // Bytes handed over to the extraction thread are detached here: decoding them would give an empty page.
    if (bytes.byteLength !== length)
      throw new PagejsonError('INTERNAL', 'the page was handed to the extraction thread: its text cannot be read here', {
        hint: 'retrieve without handOverPage to read the page',
      });
    return decodeHtmlBody(bytes, contentType).text;
  };
  const page = { ...fields, body, ...(charset?.source === 'guessed' ? { charset } : {}) };
  return Object.defineProperty(page, 'html', { enumerable: true, get: () => (html ??= text()) }) as T & {
    readonly html: string;
    body: PageBody;
    charset?: PageCharset;
  };
}
