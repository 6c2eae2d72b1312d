import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { PagejsonError } from '../../shared/index.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** The bare media type (`text/html`) of a Content-Type header, or undefined when absent or blank. */
export function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

/** Refuses a declared non-HTML type before its body is read; a missing type is judged by sniffing later. */
export function assertHtmlContentType(contentType: string | undefined): void {
  const type = mediaType(contentType);
  if (type !== undefined && !HTML_TYPES.has(type)) {
    throw new PagejsonError('FETCH_NOT_HTML', `content type ${type} is not HTML`, {
      context: { contentType: type },
      hint: 'point the config at an HTML page',
    });
  }
}

/** A body without a Content-Type is accepted only if its start looks like markup, as browsers sniff. */
export function sniffsAsHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024))
    .toString('latin1')
    .replace(/^(\xef\xbb\xbf|\xfe\xff|\xff\xfe)/, '')
    .trimStart()
    .toLowerCase();
  return /^<(!doctype html|html|head|body|title|meta|script|style|div|p|h1|table|a|br|font|iframe|b|!--)[\s>/]/.test(head);
}

export function notHtmlError(): PagejsonError {
  return new PagejsonError('FETCH_NOT_HTML', 'response is not HTML', { hint: 'point the config at an HTML page' });
}

/** No Content-Encoding, or `identity`: the body's bytes are the page's. */
export function isIdentityEncoding(contentEncoding: string | undefined): boolean {
  const encoding = contentEncoding?.trim().toLowerCase() ?? '';
  return encoding === '' || encoding === 'identity';
}

/**
 * The body as sent (identity) or decompressed. The byte cap applies to what comes out, so a small gzip
 * bomb cannot inflate past `maxBytes`. Errors of either stream end the iteration with that error.
 */
export function decodedStream(body: Readable, contentEncoding: string | undefined): Readable {
  if (isIdentityEncoding(contentEncoding)) return body;
  const encoding = contentEncoding!.trim().toLowerCase();
  const decompressor =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decompressor) {
    throw new PagejsonError('FETCH_FAILED', `unsupported content encoding ${encoding}`, { context: { encoding } });
  }
  return pipeline(body, decompressor, () => {
    // Errors surface through the returned stream's iteration; nothing to do here.
  });
}
