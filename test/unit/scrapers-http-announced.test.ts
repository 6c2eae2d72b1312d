import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { announcedLength } from '../../src/core/fetch/net/body-limit.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';

/**
 * Scraper 1 takes a body whose length the server announced in one read (no stream iterator per chunk). The
 * announced length is the bound then: these pages lie about it, over raw TCP, to show the cap and the
 * length still hold.
 */
const PAGE = '<!doctype html><html><body><h1>Announced</h1></body></html>';
const MAX_BYTES = 64 * 1024;

/** Each path answers with raw bytes, exactly as written here. */
const answers: Record<string, (socket: Socket) => void> = {
  '/exact': (socket) => socket.end(head({ 'content-length': Buffer.byteLength(PAGE) }) + PAGE),
  // Content-Encoding identity is no encoding: the announced length is checked against the cap all the same.
  '/identity-too-large': (socket) =>
    socket.end(head({ 'content-length': MAX_BYTES + 1, 'content-encoding': 'identity' }) + 'x'.repeat(1000)),
  '/too-large': (socket) => socket.end(head({ 'content-length': MAX_BYTES + 1 }) + 'x'.repeat(1000)),
  // Fewer bytes than announced, then the connection closes: a failed fetch, never half a page.
  '/short': (socket) => socket.end(head({ 'content-length': Buffer.byteLength(PAGE) + 500 }) + PAGE),
  // More bytes than announced: the page is what was announced; the rest is not part of it.
  '/long': (socket) => socket.end(head({ 'content-length': Buffer.byteLength(PAGE) }) + PAGE + '<p>smuggled</p>'.repeat(50)),
  // A small length beside chunked framing that carries more than the cap: the length must not be trusted
  // (undici's parser refuses the response today; the scraper streams such a one under the cap all the same).
  '/both': (socket) => {
    const chunk = 'x'.repeat(16 * 1024);
    socket.write(head({ 'content-length': 10, 'transfer-encoding': 'chunked' }));
    for (let i = 0; i < 6; i += 1) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    socket.end('0\r\n\r\n');
  },
  // The length announced, then a byte now and then: only the fetch's total deadline ends the whole-body read.
  '/drip': (socket) => {
    socket.write(head({ 'content-length': 10_000 }) + '<!doctype html><p>');
    const timer = setInterval(() => socket.write('.'), 50);
    socket.on('close', () => clearInterval(timer));
  },
  // A length that is not one number: the body is read as a stream, under the cap.
  '/odd-length': (socket) =>
    socket.end(head({ 'transfer-encoding': 'chunked' }) + `${Buffer.byteLength(PAGE).toString(16)}\r\n${PAGE}\r\n0\r\n\r\n`),
};

function head(headers: Record<string, string | number>): string {
  const lines = Object.entries({ 'content-type': 'text/html; charset=utf-8', ...headers }).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 200 OK\r\n${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`;
}

let server: Server;
let origin: string;
let scraper: Scraper;

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (data) => {
      const path = /^GET (\S+)/.exec(String(data))?.[1] ?? '';
      const answer = Object.hasOwn(answers, path) ? answers[path] : undefined;
      if (answer) answer(socket);
      else socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  scraper = createHttpScraper({ timeoutMs: 5_000, maxBytes: MAX_BYTES, allowPrivateNetworks: true, perOriginConcurrency: 4 });
});

afterAll(async () => {
  await scraper?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function fetchError(path: string): Promise<PagejsonError> {
  const error: unknown = await scraper.fetch({ url: `${origin}${path}` }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PagejsonError);
  return error as PagejsonError;
}

describe('a body of announced length', () => {
  it('is read whole, byte for byte', async () => {
    const page = await scraper.fetch({ url: `${origin}/exact` });
    expect(page.html).toBe(PAGE);
  });

  it('is refused before it is read when the announced length passes the cap, with or without Content-Encoding: identity', async () => {
    for (const path of ['/too-large', '/identity-too-large']) {
      const error = await fetchError(path);
      expect(error.code).toBe('FETCH_TOO_LARGE');
      expect(error.message).toBe(`response is larger than ${MAX_BYTES} bytes`);
    }
  });

  it('fails when the connection ends before the announced length, and stops at it when more comes', async () => {
    const short = await fetchError('/short');
    expect(short.code).toMatch(/^FETCH_/);
    const long = await scraper.fetch({ url: `${origin}/long` });
    expect(long.html).toBe(PAGE);
  });

  it('beside Transfer-Encoding, does not bound the read: the response fails rather than pass the cap', async () => {
    const error = await fetchError('/both');
    expect(['FETCH_TOO_LARGE', 'FETCH_FAILED']).toContain(error.code);
  });

  it('is still bounded by the fetch deadline when it trickles in', async () => {
    const hurried = createHttpScraper({ timeoutMs: 600, maxBytes: MAX_BYTES, allowPrivateNetworks: true, perOriginConcurrency: 4 });
    try {
      const error: unknown = await hurried.fetch({ url: `${origin}/drip` }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PagejsonError);
      expect((error as PagejsonError).code).toBe('FETCH_TIMEOUT');
      // Ended by the deadline's own error, not by the page (which would drip for 10,000 × 50 ms, past this
      // test's timeout): the drip is the slow fixture, the error code is what is checked.
      expect((error as PagejsonError).message).toBe('timed out after 600 ms');
    } finally {
      await hurried.close();
    }
  }, 10_000); // a bound on a hang, not a measurement

  it('without one plain length, is streamed under the cap as before', async () => {
    const page = await scraper.fetch({ url: `${origin}/odd-length` });
    expect(page.html).toBe(PAGE);
  });
});

describe('announcedLength', () => {
  it('reads one plain number of bytes and nothing else', () => {
    expect(announcedLength('1234')).toBe(1234);
    expect(announcedLength(' 0 ')).toBe(0);
    for (const odd of [undefined, '', '1e3', '-1', '12, 12', '0x10', '1.5', '9'.repeat(16)]) expect(announcedLength(odd)).toBeUndefined();
  });
});
