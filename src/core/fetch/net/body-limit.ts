import { PagejsonError } from '../../shared/index.js';

export function tooLargeError(maxBytes: number): PagejsonError {
  return new PagejsonError('FETCH_TOO_LARGE', `response is larger than ${maxBytes} bytes`, {
    context: { maxBytes },
    hint: 'raise fetch.maxBytes in pagejson.json, or point the config at a smaller page',
  });
}

/** The body length a Content-Length header announces, when it is one plain number of bytes. */
export function announcedLength(contentLength: string | undefined): number | undefined {
  if (contentLength === undefined || !/^\s*\d{1,15}\s*$/.test(contentLength)) return undefined;
  return Number(contentLength);
}

/** Refuses up front when the server announces more than the cap, before a single body byte is read. */
export function assertAnnouncedLength(contentLength: string | undefined, maxBytes: number): void {
  if (contentLength === undefined) return;
  const announced = Number(contentLength);
  if (Number.isFinite(announced) && announced > maxBytes) throw tooLargeError(maxBytes);
}

/**
 * Reads a (possibly decompressed) body while counting bytes, and gives up the moment the cap is passed,
 * so a huge or endless page never sits in memory. The caller destroys the stream on error.
 */
export async function readBodyWithLimit(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLargeError(maxBytes);
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  return Buffer.concat(chunks, total);
}
