import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createScraperPool } from '../../src/core/fetch/scrapers/index.js';
import { isPagejsonError, type PagejsonError } from '../../src/core/shared/errors.js';

/**
 * Issue 45: a config's proxy on this machine (or its private network) is refused as its page URL would be,
 * before a byte goes to it, unless fetch.allowPrivateNetworks is on. The "proxy" is a listener counting the
 * connections it gets.
 */
let server: Server;
let port: number;
let connections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  connections = 0;
});

async function fetchThroughLocalProxy(allowPrivateNetworks: boolean, host = '127.0.0.1'): Promise<PagejsonError> {
  const pool = createScraperPool({ timeoutMs: 5_000, maxBytes: 1 << 20, perOriginConcurrency: 2, allowPrivateNetworks, env: {} });
  try {
    await pool.get(1).fetch({
      url: 'http://pagejson-target.invalid/page',
      access: { endpoint: 'e', proxy: { urls: [`http://${host}:${port}`], rotate: 'round-robin' } },
    });
  } catch (error) {
    if (isPagejsonError(error)) return error;
    throw error;
  } finally {
    await pool.close();
  }
  throw new Error('expected the fetch to fail');
}

describe("a config's proxy at a private address", () => {
  it.each(['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]'])('is refused at %s before anything is sent', async (host) => {
    const error = await fetchThroughLocalProxy(false, host);
    expect(error.code).toBe('FETCH_BLOCKED_ADDRESS');
    expect(error.message).toMatch(/^the proxy http:\/\/.+ \(proxy\.urls\[0\]\) is not at a public address: address .+ is not public$/);
    expect(error.hint).toContain('fetch.allowPrivateNetworks');
    expect(connections).toBe(0);
  });

  it('is used when fetch.allowPrivateNetworks is on (the listener is reached)', async () => {
    const error = await fetchThroughLocalProxy(true);
    expect(error.code).not.toBe('FETCH_BLOCKED_ADDRESS');
    expect(connections).toBeGreaterThan(0);
  });
});
