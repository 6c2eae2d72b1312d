import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScraperPool, scraperOptionsFromSettings, type ScraperPool } from '../../src/core/fetch/scrapers/index.js';
import { rejection } from '../support/rejection.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * An `https://` proxy whose certificate is not trusted (issue 45, item 9): the failure is the proxy's, named
 * without its credentials, and every proxy of the list is still summed up; not OpenSSL's raw words. Nothing
 * reaches the impostor past the TLS handshake, so its credentials are never sent to it (scraper 2's HTTP
 * client would have sent its CONNECT with Proxy-Authorization without checking the certificate).
 */
const PASSWORD = 'pr0xy-tls-s3cret';

let dir: string;
let impostor: Server;
let site: FixtureSite;
let port: number;
const reached: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-proxy-tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
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
    key,
    '-out',
    cert,
  ]);
  impostor = createServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
    reached.push(`${req.method} ${String(req.headers['proxy-authorization'])}`);
    res.end();
  });
  impostor.on('connect', (req, socket: { destroy(): void }) => {
    reached.push(`CONNECT ${String(req.headers['proxy-authorization'])}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
  port = (impostor.address() as AddressInfo).port;
  site = await startFixtureSite();
});

afterAll(async () => {
  impostor?.closeAllConnections();
  await new Promise((resolve) => impostor?.close(resolve));
  await site?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function poolWith(urls: string[]): ScraperPool {
  const fetch = { timeoutMs: 10_000, maxBytes: 1024 * 1024, perOriginConcurrency: 4, allowPrivateNetworks: true };
  return createScraperPool(scraperOptionsFromSettings({ ...fetch, proxy: { urls, rotate: 'round-robin' } }, {}));
}

describe.each([1, 2] as const)('scraper %i through an https proxy with an untrusted certificate', (scraper) => {
  it('fails as that proxy, named without credentials; with several, every proxy failed names each', async () => {
    reached.length = 0;
    const single = poolWith([`https://user:${PASSWORD}@127.0.0.1:${port}`]);
    const several = poolWith([`https://user:${PASSWORD}@127.0.0.1:${port}`, `https://localhost:${port}`]);
    try {
      for (const page of [`${site.origin}/index.html`, `https://127.0.0.1:${site.port}/index.html`]) {
        const one = await rejection(single.get(scraper).fetch({ url: page }));
        expect(one.code).toBe('FETCH_FAILED');
        expect(one.message).toBe(`the proxy https://127.0.0.1:${port} failed: its TLS certificate is self-signed`);

        const all = await rejection(several.get(scraper).fetch({ url: page }));
        expect(all.message).toBe(
          `every proxy failed: https://127.0.0.1:${port} (its TLS certificate is self-signed); https://localhost:${port} (its TLS certificate is self-signed)`,
        );
        for (const error of [one, all])
          expect(JSON.stringify({ m: error.message, h: error.hint, c: error.context })).not.toContain(PASSWORD);
      }
      // The handshake failed before anything was sent: no request, no CONNECT, no Proxy-Authorization.
      expect(reached).toEqual([]);
    } finally {
      await Promise.all([single.close(), several.close()]);
    }
  });
});
