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

/** The guard's own credential, as the browser it serves sends it; `null`: none; a string: that one instead. */
type Credential = string | null | undefined;
const authorizationOf = (proxy: GuardProxy, credential: Credential): Record<string, string> => {
  const value = credential === undefined ? proxy.authorization : credential;
  return value === null ? {} : { 'proxy-authorization': value };
};

function proxyGet(proxy: GuardProxy, target: string, credential?: Credential): Promise<{ response: IncomingMessage; body: string }> {
  const { hostname, port } = new URL(proxy.url);
  const headers = { host: new URL(target).host, ...authorizationOf(proxy, credential) };
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, path: target, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ response, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

function proxyConnect(proxy: GuardProxy, authority: string, credential?: Credential): Promise<number> {
  const { hostname, port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, method: 'CONNECT', path: authority, headers: authorizationOf(proxy, credential) });
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

  it('serves only its browser: a local client without the per-launch credential gets 407 and reaches nothing', async () => {
    const proxy = await startGuardProxy(true);
    const other = await startGuardProxy(true);
    try {
      site.resetHits();
      const forged = `Basic ${Buffer.from('pagejson:guess').toString('base64')}`;
      // Another guard's credential (another launch) is no key to this one either.
      for (const credential of [null, forged, other.authorization]) {
        const { response } = await proxyGet(proxy, `${site.origin}/listing.html`, credential);
        expect(response.statusCode).toBe(407);
        expect(response.headers['proxy-authenticate']).toMatch(/^Basic /);
        expect(await proxyConnect(proxy, `127.0.0.1:${site.port}`, credential)).toBe(407);
      }
      expect(site.hitCount('/listing.html')).toBe(0);
      expect(proxy.authorization).not.toBe(other.authorization);
      expect(proxy.browserProxy.server).toBe(proxy.url);
      expect(proxy.url).not.toContain(proxy.browserProxy.password);
    } finally {
      await Promise.all([proxy.close(), other.close()]);
    }
  });
});
