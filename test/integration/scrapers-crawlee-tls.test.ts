import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCrawleeScraper } from '../../src/core/fetch/scrapers/crawlee.js';

/**
 * Crawlee's HTTP crawler accepts any TLS certificate unless told otherwise. Scraper 2 must verify like
 * scraper 1 and the browser: a self-signed certificate on a loopback HTTPS server is refused.
 */
let dir: string;
let server: Server;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ]);
  server = createServer({ key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Self-signed</title><h1>secret</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('scraper 2 TLS', () => {
  it('refuses a self-signed certificate with a typed fetch error', async () => {
    const scraper = createCrawleeScraper({ timeoutMs: 5_000, maxBytes: 1024 * 1024, allowPrivateNetworks: true, perOriginConcurrency: 4 });
    try {
      const { port } = server.address() as AddressInfo;
      const error = await scraper.fetch({ url: `https://127.0.0.1:${port}/` }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toMatchObject({ code: 'FETCH_FAILED' });
      expect((error as Error).message).toMatch(/SELF_SIGNED|CERT|certificate/i);
    } finally {
      await scraper.close();
    }
  });
});
