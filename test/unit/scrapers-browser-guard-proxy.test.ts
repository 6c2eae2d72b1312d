import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKED_HEADER, startGuardProxy, type GuardProxy } from '../../src/core/fetch/scrapers/browser-guard-proxy.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * The forward proxy scraper 3 sends Chromium's traffic through, driven here by plain HTTP proxy requests:
 * forward requests and CONNECT tunnels are refused for addresses the guard refuses, and pass otherwise.
 */
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});

afterAll(async () => {
  await site?.close();
});

function proxyGet(proxy: GuardProxy, target: string): Promise<{ response: IncomingMessage; body: string }> {
  const { hostname, port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, path: target, headers: { host: new URL(target).host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ response, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

function proxyConnect(proxy: GuardProxy, authority: string): Promise<number> {
  const { hostname, port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, method: 'CONNECT', path: authority });
    sent.on('connect', (response: IncomingMessage, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('guard proxy', () => {
  it('forwards requests to allowed addresses', async () => {
    const proxy = await startGuardProxy(true);
    try {
      const { response, body } = await proxyGet(proxy, `${site.origin}/listing.html`);
      expect(response.statusCode).toBe(200);
      expect(body).toContain('<html');
      expect(response.headers[BLOCKED_HEADER]).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('refuses loopback (by IP and by name) when private networks are not allowed, and never reaches the source', async () => {
    const proxy = await startGuardProxy(false);
    try {
      site.resetHits();
      for (const target of [`${site.origin}/listing.html`, `http://localhost:${site.port}/listing.html`]) {
        const { response } = await proxyGet(proxy, target);
        expect(response.statusCode).toBe(403);
        expect(response.headers[BLOCKED_HEADER]).toMatch(/^(127\.0\.0\.1|::1)$/);
      }
      expect(site.hitCount('/listing.html')).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('refuses the metadata address even with private networks allowed, for plain requests and tunnels', async () => {
    const proxy = await startGuardProxy(true);
    try {
      const { response } = await proxyGet(proxy, 'http://169.254.169.254/latest/meta-data/');
      expect(response.headers[BLOCKED_HEADER]).toBe('169.254.169.254');
      expect(await proxyConnect(proxy, '169.254.169.254:443')).toBe(403);
      expect(proxy.blockedHost('169.254.169.254')).toBe('169.254.169.254');
      expect(await proxyConnect(proxy, `127.0.0.1:${site.port}`)).toBe(200);
    } finally {
      await proxy.close();
    }
  });
});
