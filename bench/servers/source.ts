import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listingPage } from '../pages.js';

/** The source site of the benchmarks: one 100 KB listing page (50 items × 5 fields), served from memory. */
const page = Buffer.from(listingPage(50, 100 * 1024));
let served = 0;
const server = createServer((req, res) => {
  if (req.url === '/__count') {
    res.end(String(served));
    return;
  }
  served += 1;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length });
  res.end(page);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`source ready on http://127.0.0.1:${(server.address() as AddressInfo).port} (${page.length} bytes)\n`);
});
