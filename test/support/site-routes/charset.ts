import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { FIXTURE_SITE_DIR, type RouteHandler } from '../site.js';

/**
 * Pages in legacy encodings served with exactly the headers a test needs (the static server would label
 * them by extension), plus compressed and untyped responses. Files live in test/fixtures/site/charset.
 */
function servePage(file: string, headers: Record<string, string>): RouteHandler {
  return async (_req, res) => {
    // FIXTURE_SITE_DIR is read at request time (this module and site.ts import each other).
    const body = await readFile(join(FIXTURE_SITE_DIR, 'charset', file));
    res.writeHead(200, { ...headers, 'content-length': body.length });
    res.end(body);
  };
}

export const UTF8_SAMPLE_TEXT = 'Grüße aus Köln — 東京の天気は晴れです';
const utf8Page = Buffer.from(
  `<!doctype html><html><head><meta charset="utf-8"><title>Compressed</title></head><body><h1>Compressed</h1><p class="text">${UTF8_SAMPLE_TEXT}</p></body></html>`,
);

function sendCompressed(res: ServerResponse, encoding: string, body: Buffer): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': encoding, 'content-length': body.length });
  res.end(body);
}

export const charsetRoutes: Record<string, RouteHandler> = {
  '/charset/windows-1252.html': servePage('windows-1252.html', { 'content-type': 'text/html; charset=windows-1252' }),
  '/charset/shift_jis.html': servePage('shift_jis.html', { 'content-type': 'text/html; charset=Shift_JIS' }),
  // No charset in the header: the decoder has to find it in the document.
  '/charset/meta-charset.html': servePage('meta-charset.html', { 'content-type': 'text/html' }),
  '/charset/meta-http-equiv.html': servePage('meta-http-equiv.html', { 'content-type': 'text/html' }),
  // No charset anywhere (header, BOM or meta): browsers guess windows-1252 from its bytes, and so must we.
  '/charset/undeclared.html': servePage('undeclared-windows-1252.html', { 'content-type': 'text/html' }),
  // A UTF-16LE page whose header lies (says utf-8): the byte order mark wins, as in browsers.
  '/charset/bom-utf16le.html': servePage('bom-utf16le.html', { 'content-type': 'text/html; charset=utf-8' }),
  // No Content-Type at all: accepted only because the body sniffs as HTML.
  '/charset/no-content-type.html': servePage('windows-1252.html', {}),
  '/charset/no-content-type.txt': (_req, res) => {
    res.writeHead(200, {});
    res.end('just some words, no markup at all');
  },
  '/charset/gzip.html': (_req, res) => sendCompressed(res, 'gzip', gzipSync(utf8Page)),
  '/charset/br.html': (_req, res) => sendCompressed(res, 'br', brotliCompressSync(utf8Page)),
  '/charset/deflate.html': (_req, res) => sendCompressed(res, 'deflate', deflateSync(utf8Page)),
};
