import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listingPage } from '../pages.js';

/** The source site of the benchmarks: one 100 KB listing page (50 items × 5 fields), served from memory. */
const page = Buffer.from(listingPage(50, 100 * 1024));
let served = 0;
// `/sized?kb=N`: the same listing padded to N KB (the page-size series), made once per size.
const sized = new Map<number, Buffer>();
const server = createServer((req, res) => {
  if (req.url === '/__count') {
    res.end(String(served));
    return;
  }
  served += 1;
  const kb = /^\/sized\?kb=(\d+)/.exec(req.url ?? '')?.[1];
  let body: Buffer = page;
  if (kb !== undefined) {
    const size = Math.min(Number(kb), 10_240);
    body = sized.get(size) ?? Buffer.from(listingPage(50, size * 1024));
    sized.set(size, body);
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`source ready on http://127.0.0.1:${(server.address() as AddressInfo).port} (${page.length} bytes)\n`);
});
