import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { FixtureSite, RouteHandler } from '../site.js';

/**
 * A misbehaving source site: every way a page can fail to arrive. `test/support/faults.ts` lists these
 * paths with the error each scraper must turn them into. Every route stops working when the client goes
 * away, so no timer or stream outlives the request.
 */
const HTML = 'text/html; charset=utf-8';
export const HUGE_BYTES = 50 * 1024 * 1024;

function untilClosed(res: ServerResponse, onClose: () => void): void {
  res.on('close', onClose);
}

/** Writes `total` bytes in chunks, honouring backpressure, and stops as soon as the client disconnects. */
function streamBytes(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, '<p>filler</p>\n');
  let sent = 0;
  let stopped = false;
  untilClosed(res, () => {
    stopped = true;
  });
  const pump = () => {
    while (!stopped && sent < total) {
      const size = Math.min(chunk.length, total - sent);
      sent += size;
      if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!stopped) res.end();
  };
  res.write('<!doctype html><html><body>');
  pump();
}

function redirect(res: ServerResponse, location: string, status = 302): void {
  res.writeHead(status, { location, 'content-type': HTML, 'content-length': 0 });
  res.end();
}

/** Requests in flight at `/faults/slow-counted` right now and at most, per fixture site. */
const inFlightBySite = new WeakMap<FixtureSite, { now: number; max: number; served: number }>();

export function slowCountedStats(site: FixtureSite): { now: number; max: number; served: number } {
  let stats = inFlightBySite.get(site);
  if (!stats) {
    stats = { now: 0, max: 0, served: 0 };
    inFlightBySite.set(site, stats);
  }
  return stats;
}

let gzipBomb: Buffer | undefined;

export const faultRoutes: Record<string, RouteHandler> = {
  // Accepts the request and never answers.
  '/faults/hang': (_req, res) => {
    res.socket?.setTimeout(0);
  },
  // Answers at once, then one byte every 100 ms forever: only a total deadline catches this.
  '/faults/drip': (_req, res) => {
    res.writeHead(200, { 'content-type': HTML });
    res.write('<!doctype html><html><body><p>');
    const timer = setInterval(() => res.write('.'), 100);
    untilClosed(res, () => clearInterval(timer));
  },
  // Starts a response and tears the TCP connection down with a reset halfway.
  '/faults/reset': (_req, res) => {
    res.writeHead(200, { 'content-type': HTML, 'content-length': 10_000 });
    res.write('<!doctype html><html><body><p>half a page', () => {
      setTimeout(() => res.socket?.resetAndDestroy(), 20);
    });
  },
  '/faults/500': (_req, res) => {
    res.writeHead(500, { 'content-type': HTML });
    res.end('<!doctype html><title>Server error</title><h1>Internal Server Error</h1>');
  },
  '/faults/404': (_req, res) => {
    res.writeHead(404, { 'content-type': HTML });
    res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
  },
  // Promises 100 kB, sends a few bytes, then closes the connection cleanly.
  '/faults/lying-length': (_req, res) => {
    res.writeHead(200, { 'content-type': HTML, 'content-length': 100_000 });
    res.write('<!doctype html><html><body><p>short', () => res.socket?.end());
  },
  // 50 MB without a Content-Length: the client has to count.
  '/faults/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': HTML });
    streamBytes(res, HUGE_BYTES);
  },
  // 50 MB announced up front: the client can refuse before reading.
  '/faults/huge-announced': (_req, res) => {
    res.writeHead(200, { 'content-type': HTML, 'content-length': HUGE_BYTES + '<!doctype html><html><body>'.length });
    streamBytes(res, HUGE_BYTES);
  },
  '/faults/redirect-loop': (_req, res) => redirect(res, '/faults/redirect-loop'),
  // A chain longer than any scraper follows: /faults/redirect-chain?n=1 → ?n=2 → … (never ends).
  '/faults/redirect-chain': (req, res) => {
    const n = Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('n') ?? '0');
    redirect(res, `/faults/redirect-chain?n=${n + 1}`, 301);
  },
  // The classic SSRF: a public page redirecting to the cloud metadata service.
  '/faults/redirect-metadata': (_req, res) => redirect(res, 'http://169.254.169.254/latest/meta-data/'),
  '/faults/not-html': (_req, res) => {
    const body = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n', 'latin1');
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
    res.end(body);
  },
  // 20 MB of HTML that gzips to about 20 kB: the byte cap must count decompressed bytes.
  '/faults/gzip-bomb': (_req, res) => {
    gzipBomb ??= gzipSync(Buffer.concat([Buffer.from('<!doctype html><html><body>'), Buffer.alloc(20 * 1024 * 1024, ' ')]));
    res.writeHead(200, { 'content-type': HTML, 'content-encoding': 'gzip', 'content-length': gzipBomb.length });
    res.end(gzipBomb);
  },
  // Says gzip, sends garbage.
  '/faults/bad-gzip': (_req, res) => {
    const body = Buffer.from('this is not gzip at all, just bytes pretending');
    res.writeHead(200, { 'content-type': HTML, 'content-encoding': 'gzip', 'content-length': body.length });
    res.end(body);
  },
  // A slow page that counts concurrent requests server-side, for the per-origin queue.
  '/faults/slow-counted': async (_req, res, site) => {
    const stats = slowCountedStats(site);
    stats.now += 1;
    stats.max = Math.max(stats.max, stats.now);
    await new Promise((resolve) => setTimeout(resolve, 60));
    stats.now -= 1;
    stats.served += 1;
    res.writeHead(200, { 'content-type': HTML });
    res.end(`<!doctype html><title>Counted</title><p class="served">${stats.served}</p>`);
  },
  // Two legitimate redirects, then the page: followed.
  '/faults/redirect-twice': (_req, res) => redirect(res, '/faults/redirect-once', 301),
  '/faults/redirect-once': (_req, res) => redirect(res, '/listing.html', 307),
};
